-- One reward per person (issue #28): "once per period" holds per platform account within a
-- promotion, whatever partnerUids the account was linked through over time. Claims carry the
-- account already; a ticket now does too, so that a ticket of a partnerUid unlinked since still
-- counts for its account. Tickets issued before this migration take the account their partner
-- user is linked to now (those of users unlinked since cannot be told apart and stay without one).
ALTER TABLE tickets ADD COLUMN account_id text REFERENCES platform_accounts (id);
UPDATE tickets t SET account_id = m.account_id
FROM user_mappings m
WHERE m.partner_id = t.partner_id AND m.partner_uid = t.partner_uid;
CREATE INDEX tickets_account_mission ON tickets (account_id, mission_id, period_key) WHERE account_id IS NOT NULL;

-- The claims of an account for one source and period, looked up before every grant.
CREATE INDEX claims_account_source ON claims (account_id, source, source_id, period_key)
  WHERE account_id IS NOT NULL AND status <> 'REJECTED';
