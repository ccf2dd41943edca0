-- Idempotency keys by partner (docs/idempotency.md "Storage", docs/scaling.md "Money on Citus"): a
-- partner's keys are scoped by the partner's id itself (they were 'partner:<id>'; an operator's stay
-- 'admin:<id>'), so on Citus the keys are distributed on their scope, co-located with the partner's
-- progress, claims and budget stripes: a completion with a key is one shard's transaction, where the
-- reference table made it a two-phase commit over every node. On PostgreSQL and PGlite only the
-- scopes of the keys kept (24 hours) are rewritten.
UPDATE idempotency_keys SET scope = substr(scope, length('partner:') + 1) WHERE scope LIKE 'partner:%';

DO $citus$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN RETURN; END IF;
  IF NOT mrs_is_spread('idempotency_keys') THEN RETURN; END IF; -- a database migrated without Citus stays as it is (0032)
  SET LOCAL citus.multi_shard_modify_mode TO 'sequential';
  -- The key (scope, key) already includes the distribution column.
  PERFORM undistribute_table('idempotency_keys');
  PERFORM create_distributed_table('idempotency_keys', 'scope', colocate_with => 'mission_progress');
END
$citus$;
