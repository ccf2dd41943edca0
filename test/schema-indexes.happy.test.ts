// The schema's indexes, read from the migrated database (both databases): no plain index repeats
// the leading columns of another index on its table (it would cost a write on every insert and
// every non-HOT update and answer nothing the other does not; claims_user did until migration
// 0016), and a user's claims are still found through an index without it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestDatabase } from './harness.ts';

let test: Awaited<ReturnType<typeof createTestDatabase>>;

beforeAll(async () => {
  test = await createTestDatabase();
});
afterAll(async () => {
  await test?.drop();
});

/** Plain indexes whose columns, in order, lead another index of the same table. */
async function redundantIndexes() {
  const { rows } = await sql<{ tbl: string; redundant: string; covered_by: string }>`
    WITH idx AS (
      SELECT i.indrelid::regclass::text AS tbl, i.indexrelid::regclass::text AS name,
             string_to_array(i.indkey::text, ' ') AS cols, i.indpred IS NOT NULL AS partial,
             i.indisunique AS uniq, i.indexprs IS NOT NULL AS expression
      FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = current_schema()
    )
    SELECT a.tbl, a.name AS redundant, b.name AS covered_by
    FROM idx a JOIN idx b ON a.tbl = b.tbl AND a.name <> b.name
    WHERE NOT a.partial AND NOT b.partial AND NOT a.uniq AND NOT a.expression AND NOT b.expression
      AND cardinality(a.cols) <= cardinality(b.cols) AND a.cols = b.cols[1:cardinality(a.cols)]
    ORDER BY 1, 2`.execute(test.database.db);
  return rows;
}

describe('schema indexes', () => {
  it('has no plain index whose columns lead another index of the same table', async () => {
    expect(await redundantIndexes()).toEqual([]);
    // The check finds such an index where there is one (claims_user as it was).
    await sql`CREATE INDEX claims_probe ON claims (partner_id, partner_uid)`.execute(test.database.db);
    try {
      expect(await redundantIndexes()).toEqual([
        {
          tbl: 'claims',
          redundant: 'claims_probe',
          covered_by: 'claims_partner_id_partner_uid_source_source_id_period_key_key',
        },
      ]);
    } finally {
      await sql`DROP INDEX claims_probe`.execute(test.database.db);
    }
  });

  it("finds a user's claims through the claims' unique key", async () => {
    const plan = await test.database.db.transaction().execute(async (trx) => {
      await sql`SET LOCAL enable_seqscan = off`.execute(trx);
      const { rows } = await sql<{ 'QUERY PLAN': string }>`
        EXPLAIN SELECT id FROM claims WHERE partner_id = 'ptn_x' AND partner_uid = 'user-1'`.execute(trx);
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    });
    expect(plan).toMatch(
      /Index (Only )?Scan using claims_partner_id_partner_uid_source_source_id_period_key_key/,
    );
  });
});
