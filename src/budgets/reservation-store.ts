// The reservation engine's SQL (reservations.ts holds the engine: the order of the takes, the
// savepoint, the refills, the share-out): the stripes' locks and takes, as statements and as CTE
// fragments for a caller that writes what it took in the same statement (claims' grants and fixed
// completions). Every statement names one owner of stripes (a partner, or the pool: partner_id
// ''), so on Citus each is routed to one shard (docs/scaling.md "Money on Citus").
import { sql } from 'kysely';
import type { RawBuilder, Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import { prepared } from '../db/connection.ts';
import { sortedBy } from '../domain/lock-order.ts';

/** The savepoint reserveMany rolls back to when the free stripes are short. */
export async function savepointReserveMany(trx: Transaction<DB>): Promise<void> {
  await sql`savepoint reserve_many`.execute(trx);
}

/** Rolls back to reserveMany's savepoint, letting go of every stripe taken since. */
export async function rollbackToReserveMany(trx: Transaction<DB>): Promise<void> {
  await sql`rollback to savepoint reserve_many`.execute(trx);
}

/** The partner_id of a budget's pool stripes (what top-ups add to and refills move from). */
export const POOL = '';

/**
 * The CTE `pick` (stripe, remaining): the stripe of the budget's `owner` (a partner, or POOL) that
 * nobody else holds (SKIP LOCKED: never waits) with at least `atLeast` left, nearest the home
 * stripe, locked by this transaction; no row when there is none. Every take from a free stripe
 * starts here.
 */
export function freeStripePick(
  budgetId: string,
  owner: string,
  stripes: number,
  home: number,
  atLeast: bigint,
): RawBuilder<unknown> {
  return sql`pick AS (${freeStripeLock(budgetId, owner, stripes, home, atLeast)})`;
}

/** freeStripePick's SELECT alone (a statement of its own: on Citus one shard's, routed). */
export function freeStripeLock(
  budgetId: string,
  owner: string,
  stripes: number,
  home: number,
  atLeast: bigint,
): RawBuilder<{ stripe: number; remaining: string }> {
  return sql`
      SELECT stripe, remaining FROM budget_stripes
      WHERE budget_id = ${budgetId} AND partner_id = ${owner} AND remaining >= ${atLeast.toString()}::numeric
      ORDER BY (stripe - ${home}::int + ${stripes}::int) % ${stripes}::int
      LIMIT 1
      FOR UPDATE SKIP LOCKED`;
}

/**
 * Takes `amount` from a stripe this transaction has locked (freeStripeLock, with room for it): one
 * statement naming the owner, so on Citus one shard's, routed. CHECK (remaining >= 0) still guards it.
 */
export async function takeFromStripe(
  trx: Transaction<DB>,
  budgetId: string,
  owner: string,
  stripe: number,
  amount: bigint,
): Promise<void> {
  await trx
    .updateTable('budget_stripes')
    .set({ remaining: sql`remaining - ${amount.toString()}::numeric` })
    .where('budget_id', '=', budgetId)
    .where('partner_id', '=', owner)
    .where('stripe', '=', stripe)
    .execute();
}

/**
 * One statement: lock a stripe of the owner's nobody holds that has room for `amount`, and take up
 * to `wanted` whole amounts from it. Answers how many it took (0: no free stripe has room). The
 * stripe's value is read under the lock that the same statement then updates under; the update
 * re-checks it, so what is answered is exactly what was taken.
 */
export async function takeFromFreeStripe(
  trx: Transaction<DB>,
  at: { budgetId: string; owner: string; stripes: number; home: number },
  amount: bigint,
  wanted: number,
): Promise<number> {
  const a = amount.toString();
  const query = sql<{ units: string }>`
    WITH ${freeStripePick(at.budgetId, at.owner, at.stripes, at.home, amount)}
    UPDATE budget_stripes s
    SET remaining = s.remaining - least(div(pick.remaining, ${a}::numeric), ${wanted}::numeric) * ${a}::numeric
    FROM pick
    WHERE s.budget_id = ${at.budgetId} AND s.partner_id = ${at.owner} AND s.stripe = pick.stripe AND s.remaining = pick.remaining
    RETURNING least(div(pick.remaining, ${a}::numeric), ${wanted}::numeric)::text AS units`;
  const result = await trx.executeQuery(prepared('budget_take_free_stripe', query.compile(trx)));
  return Number(result.rows[0]?.units ?? 0);
}

/**
 * The CTEs `pick` and `take`: lock a stripe of the owner's nobody holds that has room for
 * `total`, nearest the home stripe, and take `total` from it. `take` has one row (the stripe) or
 * none (no free stripe had room: nothing taken, nothing locked). For a caller that writes what it
 * took in the same statement (grantClaims).
 */
export function takeFromOneFreeStripe(
  budgetId: string,
  owner: string,
  stripes: number,
  home: number,
  total: bigint,
): RawBuilder<unknown> {
  return sql`
    ${freeStripePick(budgetId, owner, stripes, home, total)}, take AS (
      UPDATE budget_stripes s SET remaining = s.remaining - ${total.toString()}::numeric
      FROM pick
      WHERE s.budget_id = ${budgetId} AND s.partner_id = ${owner} AND s.stripe = pick.stripe AND s.remaining = pick.remaining
      RETURNING s.stripe
    )`;
}

/**
 * A refill's first half: from a pool stripe nobody holds (SKIP LOCKED: never waits) with at least
 * `needed` left, nearest the home stripe, takes half of what it holds, or all of it when that is
 * less than four times `needed` (so that a refill leaves no crumbs that only a refill per batch
 * could use).
 * Answers the amount taken (0: no free pool stripe had `needed`); the caller adds it to a
 * partner's stripe in the same transaction (addToStripes).
 */
export async function takeFromPool(
  trx: Transaction<DB>,
  budgetId: string,
  stripes: number,
  home: number,
  needed: bigint,
): Promise<bigint> {
  const n = needed.toString();
  const moved = sql`CASE WHEN pick.remaining < 4 * ${n}::numeric THEN pick.remaining ELSE div(pick.remaining, 2) END`;
  const query = sql<{ moved: string }>`
    WITH ${freeStripePick(budgetId, POOL, stripes, home, needed)}
    UPDATE budget_stripes s SET remaining = s.remaining - ${moved}
    FROM pick
    WHERE s.budget_id = ${budgetId} AND s.partner_id = ${POOL} AND s.stripe = pick.stripe AND s.remaining = pick.remaining
    RETURNING (${moved})::text AS moved`;
  const result = await trx.executeQuery(prepared('budget_take_from_pool', query.compile(trx)));
  return BigInt(result.rows[0]?.moved ?? 0);
}

/** Who holds stripes of the budget (partner ids, and POOL), in lock order (POOL first). */
export async function ownersOfStripes(trx: Transaction<DB>, budgetId: string): Promise<string[]> {
  const rows = await sql<{ partner_id: string }>`
    SELECT DISTINCT partner_id FROM budget_stripes WHERE budget_id = ${budgetId}`.execute(trx);
  return sortedBy(rows.rows, (r) => r.partner_id).map((r) => r.partner_id);
}

/**
 * What is left on each stripe of the budget's `owner`, in stripe order: read without locks (a guess:
 * reserveMany's), or with `lock` locked FOR UPDATE.
 */
export function stripesOf(trx: Transaction<DB>, budgetId: string, owner: string, lock: boolean) {
  const query = trx
    .selectFrom('budget_stripes')
    .select(['stripe', 'remaining'])
    .where('budget_id', '=', budgetId)
    .where('partner_id', '=', owner)
    .orderBy('stripe');
  return (lock ? query.forUpdate() : query).execute();
}

/** Sets what is left on the given stripes of one owner (absolute values: the caller holds their locks). */
export async function setStripesRemaining(
  trx: Transaction<DB>,
  budgetId: string,
  owner: string,
  changed: ReadonlyArray<{ stripe: number; remaining: bigint }>,
): Promise<void> {
  await sql`
      UPDATE budget_stripes s SET remaining = v.remaining
      FROM unnest(${changed.map((c) => c.stripe)}::int[], ${changed.map((c) => c.remaining.toString())}::numeric[]) AS v(stripe, remaining)
      WHERE s.budget_id = ${budgetId} AND s.partner_id = ${owner} AND s.stripe = v.stripe`.execute(trx);
}

/**
 * Adds each amount to its stripe of one owner, creating the stripe when the owner has none there
 * yet. The existing stripes are locked first, in stripe order (one statement), then written (the
 * next): one statement with the locks in a CTE loses its columns between Citus's steps
 * (docs/scaling.md "On Citus").
 */
export async function addToStripes(
  trx: Transaction<DB>,
  budgetId: string,
  owner: string,
  adds: ReadonlyArray<{ stripe: number; amount: bigint }>,
): Promise<void> {
  if (adds.length === 0) return;
  const ordered = [...adds].sort((a, b) => a.stripe - b.stripe);
  await sql`
    SELECT s.stripe FROM budget_stripes s
    WHERE s.budget_id = ${budgetId} AND s.partner_id = ${owner} AND s.stripe = ANY(${ordered.map((a) => a.stripe)}::int[])
    ORDER BY s.stripe FOR UPDATE`.execute(trx);
  await trx
    .insertInto('budget_stripes')
    .values(
      ordered.map((a) => ({
        budget_id: budgetId,
        partner_id: owner,
        stripe: a.stripe,
        remaining: a.amount.toString(),
      })),
    )
    .onConflict((oc) =>
      oc
        .columns(['budget_id', 'partner_id', 'stripe'])
        .doUpdateSet({ remaining: sql`budget_stripes.remaining + excluded.remaining` }),
    )
    .execute();
}
