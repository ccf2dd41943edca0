-- Money on Citus, step 4 (docs/scaling.md "Money on Citus"): on Citus only, claims move from a
-- reference table (a copy written on every node by a two-phase commit, its writes serialized
-- cluster-wide by a lock on its shard) to a table distributed on partner_id, co-located with its
-- history, the ledger, the budget stripes and the partner's progress: a completion's claim, its
-- history and its budget take are then one shard's transaction. On PostgreSQL and PGlite this
-- does nothing (their claims keep their keys and the audit trigger).
DO $citus$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN RETURN; END IF;
  IF NOT mrs_is_spread('claims') THEN RETURN; END IF; -- a database migrated without Citus stays as it is (0032)
  SET LOCAL citus.multi_shard_modify_mode TO 'sequential';

  -- The co-located children point at (id, partner_id); they come back once claims are distributed.
  ALTER TABLE claim_events DROP CONSTRAINT claim_events_claim_fkey;
  ALTER TABLE ledger_transfers DROP CONSTRAINT ledger_transfers_claim_fkey;
  -- No foreign keys to the reference tables: on Citus a write to a table that points at reference
  -- tables locks their shards, cluster-wide, so every claim would again queue behind an operator's
  -- write of a budget, an asset, a partner or an account (and deadlock with it, docs/scaling.md
  -- "On Citus"). The claim's budget, asset, partner and account are written from existing rows, and
  -- none of those is ever deleted (the dev chain's asset is kept while a budget names it).
  ALTER TABLE claims DROP CONSTRAINT claims_account_id_fkey;
  ALTER TABLE claims DROP CONSTRAINT claims_asset_id_fkey;
  ALTER TABLE claims DROP CONSTRAINT claims_budget_id_fkey;
  ALTER TABLE claims DROP CONSTRAINT claims_partner_id_fkey;
  -- The audit trigger of 0014 would run on the workers' shards, which never see mrs.actor: an
  -- operator's claim move is audited as its operation instead (src/audit/operator-writes.ts), and
  -- its history row keeps the move and the reason.
  DROP TRIGGER audit ON claims;
  -- Every unique key must include the distribution column: (id, partner_id) becomes the key.
  ALTER TABLE claims DROP CONSTRAINT claims_pkey;
  ALTER TABLE claims DROP CONSTRAINT claims_claim_partner_key;
  ALTER TABLE claims ADD PRIMARY KEY (id, partner_id);

  PERFORM undistribute_table('claims');
  PERFORM mrs_distribute_by_partner('claims');

  ALTER TABLE claim_events ADD CONSTRAINT claim_events_claim_fkey
    FOREIGN KEY (claim_id, partner_id) REFERENCES claims (id, partner_id) ON DELETE CASCADE;
  ALTER TABLE ledger_transfers ADD CONSTRAINT ledger_transfers_claim_fkey
    FOREIGN KEY (claim_id, partner_id) REFERENCES claims (id, partner_id);
END
$citus$;
