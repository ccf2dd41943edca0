// The SQL of the rate-limit counters in PostgreSQL (counters.ts postgresCounters): the
// rate_limit_counters table of migration 0007, queried with plain SQL.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';

export interface HitRow {
  key: string;
  hits: string | number;
  ttl_ms: string | number;
}

/**
 * Adds each key's hits in one statement; a window of windowMs starts with the first hit after the
 * last one ended. `keys` in key order: rows are locked in it, so two processes' batches never
 * deadlock on each other. Answers each key's hits in its window and the ms left in it.
 */
export async function addHits(
  db: Kysely<DB>,
  keys: ReadonlyArray<{ key: string; hits: number; windowMs: number }>,
): Promise<HitRow[]> {
  const { rows } = await sql<HitRow>`
    INSERT INTO rate_limit_counters AS c (key, hits, expires_at)
    SELECT k, n, now() + w * interval '1 millisecond'
    FROM unnest(${keys.map((k) => k.key)}::text[], ${keys.map((k) => k.hits)}::int8[], ${keys.map((k) => k.windowMs)}::int8[]) AS t(k, n, w)
    ORDER BY k
    ON CONFLICT (key) DO UPDATE SET
      hits = CASE WHEN c.expires_at <= now() THEN excluded.hits ELSE c.hits + excluded.hits END,
      expires_at = CASE WHEN c.expires_at <= now() THEN excluded.expires_at ELSE c.expires_at END
    RETURNING key, hits, ceil(extract(epoch FROM (expires_at - now())) * 1000)::int8 AS ttl_ms`.execute(db);
  return rows;
}

/** Deletes up to `limit` counters whose window has ended (in slices: never a long statement); answers how many. */
export async function deleteEndedCounters(db: Kysely<DB>, limit: number): Promise<number> {
  const result = await sql`
    DELETE FROM rate_limit_counters WHERE key IN (
      SELECT key FROM rate_limit_counters WHERE expires_at <= now() LIMIT ${limit}
    )`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
