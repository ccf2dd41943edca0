-- The development chain is a new chain at every start (docs/payout.md, "The development chain"): the
-- hash of its block 0 tells a new instance from the one the database last saw, and reset_at says
-- when the chain was last found reset (the console shows it).
ALTER TABLE chain_networks ADD COLUMN genesis_hash text;
ALTER TABLE chain_networks ADD COLUMN reset_at timestamptz;

-- A payout CONFIRMED on an instance of the development chain that is gone: history only, its transfer
-- went with that chain (reconcile does not report it missing).
ALTER TABLE chain_payouts ADD COLUMN lost_with_chain_at timestamptz;
