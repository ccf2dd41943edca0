// Citus detection (docs/scaling.md "On Citus"): the service runs on a Citus cluster exactly when its
// database (the coordinator) has the citus extension. Nothing is configured: the migrations read the
// same fact (0032_citus_distribution.sql) and distribute the tables; the service only reports it.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DB } from './schema.ts';

export interface CitusLayout {
  /** Worker nodes holding shards (the coordinator not counted). */
  workers: number;
  /** Tables sharded over the workers (on partner_id, or on their own key: docs/scaling.md). */
  distributedTables: number;
  /** Tables copied to every node. */
  referenceTables: number;
}

/** Whether the database is a Citus coordinator (it has the citus extension). */
export async function isCitus(db: Kysely<DB>): Promise<boolean> {
  const { rows } = await sql<{ citus: boolean }>`
    SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') AS citus`.execute(db);
  return rows[0]?.citus === true;
}

/** The cluster's shape when the database is a Citus coordinator; undefined on PostgreSQL and PGlite. */
export async function citusLayout(db: Kysely<DB>): Promise<CitusLayout | undefined> {
  if (!(await isCitus(db))) return undefined;
  // Only now: pg_dist_* exist only where citus is installed.
  const { rows: layout } = await sql<{ workers: number; distributed: number; reference: number }>`
    SELECT (SELECT count(*)::int FROM pg_dist_node WHERE groupid <> 0 AND noderole = 'primary' AND isactive) AS workers,
           (SELECT count(*)::int FROM pg_dist_partition WHERE partmethod = 'h') AS distributed,
           (SELECT count(*)::int FROM pg_dist_partition WHERE partmethod = 'n' AND repmodel = 't') AS reference`.execute(
    db,
  );
  const row = layout[0];
  return {
    workers: row?.workers ?? 0,
    distributedTables: row?.distributed ?? 0,
    referenceTables: row?.reference ?? 0,
  };
}

// Whether a partner's completions take from the partner's own stripes of a budget (on Citus, where
// they live on the partner's shard) or from the budget's pool (PostgreSQL and PGlite, where the pool's
// stripes serve a crowd fastest: measured in docs/scaling.md "Money on Citus"). Set once per process
// when its database is opened (src/db/open.ts, test/harness.ts); the same for every process of one
// database, and exact either way (a process that has not set it takes from the pool).
let perPartnerStripes = false;

/** Says whether this process's database is a Citus coordinator (see stripesPerPartner). */
export function useStripesPerPartner(on: boolean): void {
  perPartnerStripes = on;
}

/** Whether a partner's completions take from its own stripes (true on Citus). */
export function stripesPerPartner(): boolean {
  return perPartnerStripes;
}

/**
 * Row locks partner by partner: on Citus a row lock must name one shard, so a lease over several
 * partners' rows runs `lock` once per partner (in the order given, each naming partner_id), with
 * what is left of `limit`, until `limit` rows are locked. The same on every database.
 */
export async function lockPartnerByPartner<T>(
  partners: readonly string[],
  limit: number,
  lock: (partnerId: string, limit: number) => Promise<T[]>,
): Promise<T[]> {
  const locked: T[] = [];
  for (const partnerId of partners) {
    if (locked.length >= limit) break;
    locked.push(...(await lock(partnerId, limit - locked.length)));
  }
  return locked;
}
