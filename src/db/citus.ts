// Citus detection (docs/scaling.md "On Citus"): the service runs on a Citus cluster exactly when its
// database (the coordinator) has the citus extension. Nothing is configured: the migrations read the
// same fact (0032_citus_distribution.sql) and distribute the tables; the service only reports it.
import { sql } from 'kysely';
import type { Kysely, RawBuilder } from 'kysely';
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

/** Whether this process's database is a Citus coordinator (statements shaped for its planner). */
export function onCitusCoordinator(): boolean {
  return perPartnerStripes;
}

/**
 * `user_mappings` for a join from a batch's rows (a function's rows or a CTE's). On Citus, only the
 * batch's users' rows, named by constants: Citus prunes shards only by a constant on the
 * distribution column, and plans a distributed table on the inner side of an outer join from such
 * rows as a sub-plan of its own, which without these conditions read the whole table on every shard
 * and sent it to the coordinator, at every completion (docs/scaling.md "Where the crowd's cost
 * went"). Elsewhere the table itself: PostgreSQL joins on its primary key.
 */
export function mappingsOfBatch(
  users: ReadonlyArray<{ partnerId: string; partnerUid: string }>,
): RawBuilder<unknown> {
  if (!perPartnerStripes) return sql`user_mappings`;
  return sql`(SELECT * FROM user_mappings WHERE ${partnerIn(sql.ref('partner_id'), users)}
                AND partner_uid = ANY(${users.map((u) => u.partnerUid)}::text[]))`;
}

/**
 * `column` is one of the partners of a batch's rows, as a condition Citus prunes shards by (see
 * mappingsOfBatch). One partner (a completion's batch always) is an equality, not `= ANY`: beside
 * the join's own equality on the column, PostgreSQL then knows the join's side is that constant,
 * where `= ANY` made it guess a handful of rows for the partner and walk all its mappings by the
 * wrong index (1.1-1.7 s a statement, seen with auto_explain on a worker).
 */
export function partnerIn(
  column: RawBuilder<unknown> | ReturnType<typeof sql.ref>,
  rows: ReadonlyArray<{ partnerId: string }>,
) {
  const partners = [...new Set(rows.map((r) => r.partnerId))];
  return partners.length === 1 ? sql`${column} = ${partners[0]}` : sql`${column} = ANY(${partners}::text[])`;
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
