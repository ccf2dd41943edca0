-- Login and linking: logins in progress (single use) and one-time mapping tokens (stored hashed).

-- A login started by GET /v1/mission-users/auth (purpose LINK) or GET /v1/login (purpose SESSION).
-- Consumed (deleted) by the callback; the state itself is never stored, only its SHA-256.
CREATE TABLE login_states (
  state_hash    text PRIMARY KEY,
  purpose       text NOT NULL CHECK (purpose IN ('LINK', 'SESSION')),
  partner_id    text REFERENCES partners (id) ON DELETE CASCADE,
  -- LINK: the partner's registered redirect URL with the query it came with; SESSION: a path of ours.
  return_to     text NOT NULL,
  browser_type  text NOT NULL CHECK (browser_type IN ('MINI', 'LIFF', 'WEB')),
  code_verifier text NOT NULL,
  nonce         text NOT NULL,
  -- SHA-256 of the browser-binding cookie set when the login started; null on the LIFF path.
  binding_hash  text,
  created_at    timestamptz NOT NULL,
  expires_at    timestamptz NOT NULL,
  CHECK (purpose = 'SESSION' OR partner_id IS NOT NULL)
);
CREATE INDEX login_states_expires ON login_states (expires_at);

-- One-time mapping token: issued to the partner's front end after a login, consumed by connect.
CREATE TABLE mapping_tokens (
  token_hash   text PRIMARY KEY,
  partner_id   text NOT NULL REFERENCES partners (id) ON DELETE CASCADE,
  account_id   text NOT NULL REFERENCES platform_accounts (id) ON DELETE CASCADE,
  created_at   timestamptz NOT NULL,
  expires_at   timestamptz NOT NULL,
  consumed_at  timestamptz,
  -- The partner user it was connected to, for the audit trail.
  consumed_uid text
);
CREATE INDEX mapping_tokens_expires ON mapping_tokens (expires_at);
