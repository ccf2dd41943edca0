-- Caps count per payout address as well as per account (issue #28): a farmer binding one wallet
-- to many accounts collected every account's cap into it. The per-account cap now also bounds what
-- all the accounts bound to one address receive together (scope ADDRESS, subject the address).
ALTER TABLE cap_usage DROP CONSTRAINT cap_usage_scope_check;
ALTER TABLE cap_usage ADD CONSTRAINT cap_usage_scope_check CHECK (scope IN ('ACCOUNT', 'PARTNER', 'ADDRESS'));

-- The accounts of an address (grants, the operator's list of shared addresses, the bind check).
CREATE INDEX user_wallets_address ON user_wallets (address);
