-- A lucky draw's ticket set closes at `closes_at`, fixed when the draw is created (issue #28 item 1);
-- until now the scheduled time played that part, so existing draws close at their scheduled time.
-- A draw whose budget pays on a chain mixes the hash of the first block mined after the close into
-- its seed (`beacon_*`): nobody, not even a reader of draw_seeds, knows the winners while tickets
-- can still be added. The network is fixed at creation; the block is written by the run.
-- `titles`: per-language titles, as promotions have them (migration 0013, docs/i18n.md).
ALTER TABLE draws ADD COLUMN closes_at timestamptz;
UPDATE draws SET closes_at = scheduled_at;
ALTER TABLE draws ALTER COLUMN closes_at SET NOT NULL;
ALTER TABLE draws ADD CONSTRAINT draws_closes_before_run CHECK (closes_at <= scheduled_at);

ALTER TABLE draws ADD COLUMN beacon_network_id text REFERENCES chain_networks (id);
ALTER TABLE draws ADD COLUMN beacon_chain_id integer;
ALTER TABLE draws ADD COLUMN beacon_block_number bigint;
ALTER TABLE draws ADD COLUMN beacon_block_hash text;
-- A drawn chain draw has its block; a ledger draw never has one.
ALTER TABLE draws ADD CONSTRAINT draws_beacon_block CHECK (
  (beacon_network_id IS NULL AND beacon_block_hash IS NULL)
  OR status = 'COMMITTED'
  OR beacon_block_hash IS NOT NULL
);

ALTER TABLE draws ADD COLUMN titles jsonb NOT NULL DEFAULT '{}'::jsonb;
