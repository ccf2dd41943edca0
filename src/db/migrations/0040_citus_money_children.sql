-- Money on Citus, step 2 of its migrations (docs/scaling.md "Money on Citus"): on Citus only, a
-- claim's history and the ledger move from reference tables (a copy written on every node, by a
-- two-phase commit) to tables distributed on partner_id, co-located with the partner's other rows:
-- a completion's history row and a payout's transfer and entries are then written on the partner's
-- shard alone. 0039 gave them partner_id and keys that include it. Their foreign keys point at
-- claims and reward_assets, still reference tables, which Citus allows from a distributed table.
-- On PostgreSQL and PGlite (no citus extension) this does nothing.
DO $citus$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN RETURN; END IF;
  IF NOT mrs_is_spread('claim_events') THEN RETURN; END IF; -- a database migrated without Citus stays as it is (0032)
  SET LOCAL citus.multi_shard_modify_mode TO 'sequential';

  -- A reference table with foreign keys cannot be turned into a distributed one: the keys go first
  -- and come back once the three are distributed.
  ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_transfer_fkey;
  ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_asset_id_fkey;
  ALTER TABLE ledger_transfers DROP CONSTRAINT ledger_transfers_claim_fkey;
  ALTER TABLE ledger_transfers DROP CONSTRAINT ledger_transfers_asset_id_fkey;
  ALTER TABLE claim_events DROP CONSTRAINT claim_events_claim_fkey;

  PERFORM undistribute_table('claim_events');
  PERFORM undistribute_table('ledger_transfers');
  PERFORM undistribute_table('ledger_entries');
  PERFORM mrs_distribute_by_partner('claim_events');
  PERFORM mrs_distribute_by_partner('ledger_transfers');
  PERFORM mrs_distribute_by_partner('ledger_entries');

  ALTER TABLE claim_events ADD CONSTRAINT claim_events_claim_fkey
    FOREIGN KEY (claim_id, partner_id) REFERENCES claims (id, partner_id) ON DELETE CASCADE;
  ALTER TABLE ledger_transfers ADD CONSTRAINT ledger_transfers_claim_fkey
    FOREIGN KEY (claim_id, partner_id) REFERENCES claims (id, partner_id);
  ALTER TABLE ledger_transfers ADD CONSTRAINT ledger_transfers_asset_id_fkey
    FOREIGN KEY (asset_id) REFERENCES reward_assets (id);
  ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_asset_id_fkey
    FOREIGN KEY (asset_id) REFERENCES reward_assets (id);
  ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_transfer_fkey
    FOREIGN KEY (transfer_id, partner_id) REFERENCES ledger_transfers (id, partner_id);
END
$citus$;
