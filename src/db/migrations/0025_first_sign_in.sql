-- The development first-OWNER sign-in (docs/operations.md "First hour"): a one-time code that
-- start-up prints when no operator credential exists; exchanged once for an OWNER credential.
-- Kept by hash only; never issued with NODE_ENV=production.
CREATE TABLE IF NOT EXISTS admin_first_sign_ins (
  code_hash   text PRIMARY KEY,
  created_at  timestamptz NOT NULL,
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz
);
