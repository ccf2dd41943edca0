// A fingerprint of every table of the service's schema (row count and a hash of every row), so a
// test can prove that refused requests changed nothing in the database. One statement, so a fuzz
// run can take one after every request.
import { sql } from 'kysely';
import type { Database } from '../src/db/connection.ts';

/**
 * Tables that record refusals by design (rate-limit and failed-credential counters) change with a
 * refused request; they are left out. Names only, matched whole.
 */
export const REFUSAL_COUNTER_TABLES = /^(rate_limit.*|.*_rate_limits?|auth_failures?)$/;

export async function databaseFingerprint(
  db: Database['db'],
  exclude: RegExp = REFUSAL_COUNTER_TABLES,
): Promise<string> {
  const { rows: tables } = await sql<{ name: string }>`
    SELECT table_name AS name FROM information_schema.tables
    WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`.execute(db);
  const parts = tables
    .filter(({ name }) => !exclude.test(name))
    .map(
      ({ name }) =>
        sql`SELECT ${name}::text AS name, count(*)::text AS n,
              md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) AS h
            FROM ${sql.table(name)} t`,
    );
  if (parts.length === 0) return '';
  const { rows } = await sql<{
    name: string;
    n: string;
    h: string;
  }>`${sql.join(parts, sql` UNION ALL `)}`.execute(db);
  return rows.map((row) => `${row.name}:${row.n}:${row.h}`).join('\n');
}
