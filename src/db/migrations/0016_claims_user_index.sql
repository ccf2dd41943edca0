-- claims_user (partner_id, partner_uid) repeated the first two columns of the claims' unique key
-- (partner_id, partner_uid, source, source_id, period_key), which answers every lookup of a user's
-- claims as well. It cost an index entry on every claim written and on every change of a claim's
-- status (a status change is not a HOT update: status is indexed), and served nothing the unique
-- key does not (docs/performance.md, "Eighth round"; test/schema-indexes.happy.test.ts).
DROP INDEX IF EXISTS claims_user;
