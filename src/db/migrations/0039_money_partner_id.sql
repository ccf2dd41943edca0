-- Money on Citus, step 1 (docs/scaling.md "Money on Citus"): every row a claim owns carries its
-- claim's partner_id, the column Citus distributes on, points at its claim (or transfer) through
-- it, and every key of these rows includes it (Citus enforces uniqueness per shard, so a distributed
-- table's unique keys must contain the column). The same on PGlite, PostgreSQL and Citus: one code
-- path writes partner_id everywhere. Which tables are distributed is 0040's business (Citus only).
--
-- The new keys lead with the row's own id (id, partner_id): an index leading with partner_id would
-- be the planner's pick for a user's claims in place of the unique key (partner_id, partner_uid, ...)
-- (test/schema-indexes.happy.test.ts), and a lookup by id alone still finds its row by the key.

-- (id, partner_id) names a claim as its children do; id alone stays unique.
ALTER TABLE claims ADD CONSTRAINT claims_claim_partner_key UNIQUE (id, partner_id);

-- A claim's history.
ALTER TABLE claim_events ADD COLUMN partner_id text;
UPDATE claim_events e SET partner_id = c.partner_id FROM claims c WHERE c.id = e.claim_id;
ALTER TABLE claim_events ALTER COLUMN partner_id SET NOT NULL;
ALTER TABLE claim_events DROP CONSTRAINT claim_events_claim_id_fkey;
ALTER TABLE claim_events ADD CONSTRAINT claim_events_claim_fkey
  FOREIGN KEY (claim_id, partner_id) REFERENCES claims (id, partner_id) ON DELETE CASCADE;
ALTER TABLE claim_events DROP CONSTRAINT claim_events_pkey;
ALTER TABLE claim_events ADD PRIMARY KEY (id, partner_id);

-- The ledger: a transfer per paid claim (at most one: unique by claim), its two entries.
ALTER TABLE ledger_transfers ADD COLUMN partner_id text;
UPDATE ledger_transfers t SET partner_id = c.partner_id FROM claims c WHERE c.id = t.claim_id;
ALTER TABLE ledger_transfers ALTER COLUMN partner_id SET NOT NULL;
ALTER TABLE ledger_entries ADD COLUMN partner_id text;
UPDATE ledger_entries e SET partner_id = t.partner_id FROM ledger_transfers t WHERE t.id = e.transfer_id;
ALTER TABLE ledger_entries ALTER COLUMN partner_id SET NOT NULL;

ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_transfer_id_fkey;
ALTER TABLE ledger_transfers DROP CONSTRAINT ledger_transfers_claim_id_fkey;
ALTER TABLE ledger_transfers DROP CONSTRAINT ledger_transfers_claim_id_key;
ALTER TABLE ledger_transfers DROP CONSTRAINT ledger_transfers_pkey;
ALTER TABLE ledger_transfers ADD PRIMARY KEY (id, partner_id);
ALTER TABLE ledger_transfers ADD CONSTRAINT ledger_transfers_claim_partner_key UNIQUE (claim_id, partner_id);
ALTER TABLE ledger_transfers ADD CONSTRAINT ledger_transfers_claim_fkey
  FOREIGN KEY (claim_id, partner_id) REFERENCES claims (id, partner_id);
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_pkey;
ALTER TABLE ledger_entries ADD PRIMARY KEY (id, partner_id);
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_transfer_fkey
  FOREIGN KEY (transfer_id, partner_id) REFERENCES ledger_transfers (id, partner_id);
