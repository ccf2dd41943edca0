-- Webhook messages by partner (docs/scaling.md "Money on Citus", docs/webhooks.md): a message's
-- attempts carry its partner_id, every key of theirs includes it, and the delivery worker leases
-- due messages partner by partner (src/webhooks/store/delivery.ts), with an index for that lease.
-- On Citus the messages and their attempts then move from reference tables (a copy on every node,
-- written by a two-phase commit and serialized cluster-wide) to tables distributed on partner_id,
-- co-located with the partner's claims: a completion that writes its events is again one shard's
-- transaction.
ALTER TABLE webhook_attempts ADD COLUMN partner_id text;
UPDATE webhook_attempts a SET partner_id = m.partner_id FROM webhook_messages m WHERE m.id = a.message_id;
ALTER TABLE webhook_attempts ALTER COLUMN partner_id SET NOT NULL;
ALTER TABLE webhook_messages ADD CONSTRAINT webhook_messages_id_partner_key UNIQUE (id, partner_id);
ALTER TABLE webhook_attempts DROP CONSTRAINT webhook_attempts_message_id_fkey;
ALTER TABLE webhook_attempts ADD CONSTRAINT webhook_attempts_message_fkey
  FOREIGN KEY (message_id, partner_id) REFERENCES webhook_messages (id, partner_id);
-- A partner's due messages in event order (the lease of one partner reads only its round).
CREATE INDEX webhook_messages_partner_due_order
  ON webhook_messages (partner_id, next_attempt_at, created_at, rank, seq) WHERE status = 'PENDING';

DO $citus$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN RETURN; END IF;
  IF NOT mrs_is_spread('webhook_messages') THEN RETURN; END IF; -- a database migrated without Citus stays as it is (0032)
  SET LOCAL citus.multi_shard_modify_mode TO 'sequential';

  ALTER TABLE webhook_attempts DROP CONSTRAINT webhook_attempts_message_fkey;
  -- No foreign key to the endpoints (a reference table), as for claims (0042): a write to a table
  -- that points at a reference table locks its shard cluster-wide. Endpoints are never deleted.
  ALTER TABLE webhook_messages DROP CONSTRAINT webhook_messages_endpoint_id_fkey;
  -- The audit trigger of 0014 would run on the workers' shards, which never see mrs.actor: an
  -- operator's requeue is audited as its operation (src/audit/operator-writes.ts).
  DROP TRIGGER audit ON webhook_messages;
  -- Every unique key must include the distribution column.
  ALTER TABLE webhook_messages DROP CONSTRAINT webhook_messages_pkey;
  ALTER TABLE webhook_attempts DROP CONSTRAINT webhook_attempts_pkey;
  ALTER TABLE webhook_attempts ADD PRIMARY KEY (id, partner_id);

  PERFORM undistribute_table('webhook_attempts');
  PERFORM undistribute_table('webhook_messages');
  PERFORM mrs_distribute_by_partner('webhook_messages');
  PERFORM mrs_distribute_by_partner('webhook_attempts');

  ALTER TABLE webhook_attempts ADD CONSTRAINT webhook_attempts_message_fkey
    FOREIGN KEY (message_id, partner_id) REFERENCES webhook_messages (id, partner_id);
END
$citus$;
