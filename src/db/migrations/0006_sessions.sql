-- End-user sessions held server side, so that logout and "sign out everywhere" end them at once in
-- every process; and no stored part of a human-chosen admin secret (issue 11, findings 3 and 12).

-- One row per signed-in browser. The cookie carries a random session id (256 bits); only its
-- SHA-256 is stored, so a copy of this table signs nobody in. Ending a session deletes its row.
CREATE TABLE user_sessions (
  id_hash    text PRIMARY KEY,
  account_id text NOT NULL REFERENCES platform_accounts (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  CHECK (expires_at > created_at)
);
-- "Sign out everywhere" deletes by account; the purge deletes by expiry.
CREATE INDEX user_sessions_account ON user_sessions (account_id);
CREATE INDEX user_sessions_expires ON user_sessions (expires_at);

-- ADMIN_TOKEN is chosen by a person: no prefix of it is kept (a prefix of a short, guessable
-- secret helps whoever guesses it). Generated secrets (adm_ + 256 random bits) keep theirs.
UPDATE admin_credentials SET secret_prefix = '' WHERE secret_prefix NOT LIKE 'adm\_%';
