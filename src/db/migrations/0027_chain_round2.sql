-- Chain payout, round 2 (docs/payout.md).
-- A payout whose transaction was mined but did not move exactly its amount from the reward wallet
-- to the user (a token whose transfer returns false, or takes a fee) is FAILED, not CONFIRMED.
ALTER TABLE chain_payouts DROP CONSTRAINT chain_payouts_status_check;
ALTER TABLE chain_payouts ADD CONSTRAINT chain_payouts_status_check
  CHECK (status IN ('SIGNED', 'BROADCAST', 'CONFIRMED', 'REVERTED', 'FAILED'));

-- A reward wallet stopped because the chain lost transfers the outbox had confirmed (a reorg deeper
-- than the network's confirmations): nothing is signed for it until an operator recovers it.
ALTER TABLE reward_wallets ADD COLUMN halted_at timestamptz;
ALTER TABLE reward_wallets ADD COLUMN halted_reason text;

-- A network an operator disabled: nothing is signed or sent on it until it is enabled again.
ALTER TABLE chain_networks ADD COLUMN disabled_at timestamptz;
-- Further RPC URLs, tried in order after rpc_url when it does not answer.
ALTER TABLE chain_networks ADD COLUMN fallback_rpc_urls text[] NOT NULL DEFAULT '{}';

-- The console's payouts list: newest first, by status.
CREATE INDEX chain_payouts_signed ON chain_payouts (signed_at DESC, id DESC);
