-- Rate-limit counters shared by every process (docs/security.md, "Rate limits"): one row per limit
-- and key (a source address, a partner), counting hits in a fixed window that ends at expires_at.
-- UNLOGGED: counters need not survive a database crash, and skipping the WAL keeps the hot
-- per-partner increment cheap. Expired rows are purged by the service.

CREATE UNLOGGED TABLE IF NOT EXISTS rate_limit_counters (
  key text PRIMARY KEY,
  hits bigint NOT NULL CHECK (hits >= 0),
  expires_at timestamptz NOT NULL
);

CREATE INDEX IF NOT EXISTS rate_limit_counters_expires ON rate_limit_counters (expires_at);
