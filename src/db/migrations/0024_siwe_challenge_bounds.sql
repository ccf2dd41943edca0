-- Wallet (SIWE) challenges are purged once expired and bounded per account and per address
-- (src/chain/user-wallets.ts, docs/wallets.md): the purge finds expired rows by expires_at, and the
-- bounds count an account's or an address's live challenges at each issue.
CREATE INDEX IF NOT EXISTS siwe_challenges_expiry ON siwe_challenges (expires_at);
CREATE INDEX IF NOT EXISTS siwe_challenges_account ON siwe_challenges (account_id, expires_at);
CREATE INDEX IF NOT EXISTS siwe_challenges_address ON siwe_challenges (address, expires_at);
