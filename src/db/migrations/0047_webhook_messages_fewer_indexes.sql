-- Two indexes fewer on webhook_messages (docs/performance.md "Seventeenth round"): every message
-- written, and every lease and attempt that moves it (none of them a HOT update: each changes an
-- indexed column), paid an entry in each of the table's five indexes; a completion writes three
-- messages. On PostgreSQL and PGlite:
-- - The primary key becomes (id, partner_id), the key the attempts already point at (0045), in place
--   of the key on id alone beside a unique key on (id, partner_id). A message is still found by its
--   id alone, through the key's first column. Ids stay unique: 74 random bits after the time in ms
--   (src/webhooks/store/outbox.ts), as on Citus since 0045, where the key must include partner_id.
-- - The index of every partner's due messages together (0015) goes. A round reads its partners
--   off each one's own due-order index (0045) instead (src/webhooks/store/delivery.ts,
--   `duePartners`): one probe a partner with an enabled endpoint.
-- On Citus the key on id alone was already dropped (0045), and the due index stays: Citus cannot
-- push a probe a partner down to the shards (a lateral sub-query with a LIMIT), so a round's
-- partners there still come from the first due messages of all of them.
DO $keys$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_constraint WHERE conrelid = 'webhook_messages'::regclass AND conname = 'webhook_messages_pkey') THEN
    ALTER TABLE webhook_attempts DROP CONSTRAINT webhook_attempts_message_fkey;
    ALTER TABLE webhook_messages DROP CONSTRAINT webhook_messages_id_partner_key;
    ALTER TABLE webhook_messages DROP CONSTRAINT webhook_messages_pkey;
    ALTER TABLE webhook_messages ADD PRIMARY KEY (id, partner_id);
    ALTER TABLE webhook_attempts ADD CONSTRAINT webhook_attempts_message_fkey
      FOREIGN KEY (message_id, partner_id) REFERENCES webhook_messages (id, partner_id);
  END IF;
END
$keys$;
DO $due$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN RETURN; END IF;
  DROP INDEX webhook_messages_due_order;
END
$due$;
