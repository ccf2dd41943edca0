-- Lucky-draw tickets by partner (docs/scaling.md "Money on Citus"): on Citus only, tickets move from
-- a reference table (a copy on every node written by a two-phase commit, its writes serialized
-- cluster-wide by a lock on its shard) to a table distributed on partner_id, co-located with the
-- partner's progress and claims: a completion that issues a ticket is one shard's transaction. A
-- draw locks its budget's tickets partner by partner (src/draws/store.ts). On PostgreSQL and PGlite
-- this does nothing.
DO $citus$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN RETURN; END IF;
  IF NOT mrs_is_spread('tickets') THEN RETURN; END IF; -- a database migrated without Citus stays as it is (0032)
  SET LOCAL citus.multi_shard_modify_mode TO 'sequential';

  -- No foreign keys to the reference tables, as for claims (0042): a write to a table that points
  -- at reference tables locks their shards cluster-wide, so every ticket would queue behind an
  -- operator's write of a partner, a mission, a budget, a draw or an account. A ticket is written
  -- from existing rows, and none of those is ever deleted.
  ALTER TABLE tickets DROP CONSTRAINT tickets_partner_id_fkey;
  ALTER TABLE tickets DROP CONSTRAINT tickets_mission_id_fkey;
  ALTER TABLE tickets DROP CONSTRAINT tickets_budget_id_fkey;
  ALTER TABLE tickets DROP CONSTRAINT tickets_draw_id_fkey;
  ALTER TABLE tickets DROP CONSTRAINT tickets_account_id_fkey;
  -- Every unique key must include the distribution column: (id, partner_id) becomes the key (the
  -- other, (partner_id, partner_uid, mission_id, period_key), has it already).
  ALTER TABLE tickets DROP CONSTRAINT tickets_pkey;
  ALTER TABLE tickets ADD PRIMARY KEY (id, partner_id);

  PERFORM undistribute_table('tickets');
  PERFORM mrs_distribute_by_partner('tickets');
END
$citus$;
