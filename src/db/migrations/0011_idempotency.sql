-- Idempotency keys (docs/idempotency.md): one row per (scope, key), where the scope is a partner
-- ('partner:<id>') or an operator credential ('admin:<id>'). A row is RUNNING while its first
-- request runs (until locked_until, a lease that a crashed process cannot hold forever), then DONE
-- with the answer to replay. Rows live 24 hours (expires_at) and are purged by the service.

CREATE TABLE IF NOT EXISTS idempotency_keys (
  scope text NOT NULL,
  key text NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
  -- SHA-256 (hex) of the canonical request: method, path, body.
  fingerprint text NOT NULL,
  state text NOT NULL CHECK (state IN ('RUNNING', 'DONE')),
  -- Which run holds the row: a run whose lease lapsed and was taken over can no longer write it.
  owner text NOT NULL,
  locked_until timestamptz NOT NULL,
  response_status integer,
  response_headers jsonb,
  response_body text,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (scope, key),
  CHECK (state = 'RUNNING' OR response_status IS NOT NULL)
);

CREATE INDEX IF NOT EXISTS idempotency_keys_expires ON idempotency_keys (expires_at);
