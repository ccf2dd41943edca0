-- The webhook outbox (docs/webhooks.md "The outbox", docs/performance.md "Nineteenth round"): a
-- statement that changes what partners are told about writes its messages as ONE row per partner,
-- its events' endpoints, types and times as arrays and their data as one JSON array, instead of a
-- row per message with three index entries each. The delivery worker turns the rows into
-- webhook_messages, in event order, before each round (and a listing of messages does, before it
-- reads): the row deleted and its messages inserted by one statement, so each becomes its messages
-- exactly once. A flash crowd's completion wrote three messages, 3.0 kB of WAL; its part of an
-- outbox row is about 0.4 kB, and the messages are made after the crowd, as they are delivered
-- after it (WEBHOOK_YIELD_MS).
CREATE TABLE webhook_outbox (
  partner_id   text NOT NULL,
  -- Order of writing, which is the order the rows become messages in (their seq).
  id           bigserial NOT NULL,
  -- The earliest event's time: a row becomes messages once its events are due to be sent.
  created_at   timestamptz NOT NULL,
  -- Per message, in the statement's order: the endpoint, the event type and the event's time.
  endpoint_ids text[] NOT NULL,
  event_types  text[] NOT NULL,
  event_times  timestamptz[] NOT NULL,
  -- The events' data, the same order: a JSON array.
  data         jsonb NOT NULL,
  PRIMARY KEY (partner_id, id),
  CHECK (cardinality(endpoint_ids) = cardinality(event_types)
         AND cardinality(event_types) = cardinality(event_times)
         AND cardinality(event_times) = jsonb_array_length(data))
);
-- The rows to turn into messages, oldest first, across partners.
CREATE INDEX webhook_outbox_created ON webhook_outbox (created_at);

DO $citus$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN RETURN; END IF;
  IF NOT mrs_is_spread('webhook_messages') THEN RETURN; END IF; -- a database migrated without Citus stays as it is (0032)
  SET LOCAL citus.multi_shard_modify_mode TO 'sequential';
  -- On the partner's shard, beside its messages: a row becomes messages in one shard's transaction.
  PERFORM mrs_distribute_by_partner('webhook_outbox');
END
$citus$;
