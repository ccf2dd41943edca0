-- Money on Citus, step 3 (docs/scaling.md "Money on Citus"): a budget's stripes belong to a
-- partner or to the budget's pool. The rows already there become the pool's (partner_id ''); a partner's
-- completions take from its own stripes, which a refill fills from the pool (src/budgets/
-- reservations.ts). sum(remaining) over a budget's rows is still what the budget has left.
ALTER TABLE budget_stripes ADD COLUMN partner_id text NOT NULL DEFAULT '';
ALTER TABLE budget_stripes DROP CONSTRAINT budget_stripes_pkey;
ALTER TABLE budget_stripes ADD PRIMARY KEY (budget_id, partner_id, stripe);

-- On Citus the stripes move from a reference table (every write a two-phase commit on every node)
-- to a table distributed on partner_id, co-located with the partner's other rows: a completion's
-- take is then written on its partner's shard. The pool's rows ('') live on one shard, which only
-- refills and top-ups write. Nothing points at budget_stripes. Its foreign key to budgets is not
-- kept on Citus: there a write or row lock of a distributed table that points at a reference table
-- also locks the reference table's shard, so every take would lock budgets' shard before the claims
-- (which lock it after reward_assets'), and an operator's top-up (budgets' row, then reward_assets')
-- deadlocked with completions (docs/scaling.md "On Citus"). A budget's stripes are written with the
-- budget in one transaction and budgets are never deleted, so the key guarded nothing the code does
-- not. On PostgreSQL and PGlite this does nothing.
DO $citus$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN RETURN; END IF;
  IF NOT mrs_is_spread('budget_stripes') THEN RETURN; END IF; -- a database migrated without Citus stays as it is (0032)
  SET LOCAL citus.multi_shard_modify_mode TO 'sequential';
  ALTER TABLE budget_stripes DROP CONSTRAINT budget_stripes_budget_id_fkey;
  PERFORM undistribute_table('budget_stripes');
  PERFORM mrs_distribute_by_partner('budget_stripes');
END
$citus$;
