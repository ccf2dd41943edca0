// The reservation engine's SQL (reservations.ts holds the engine: the order of the takes, the
// savepoint, the share-out): the stripes' locks and takes, as statements and as CTE fragments for a
// caller that writes what it took in the same statement (claims' grants and fixed completions).
import { sql } from 'kysely';
import type { RawBuilder, Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import { prepared } from '../db/connection.ts';

/** The savepoint reserveMany rolls back to when the free stripes are short. */
export async function savepointReserveMany(trx: Transaction<DB>): Promise<void> {
  await sql`savepoint reserve_many`.execute(trx);
}

/** Rolls back to reserveMany's savepoint, letting go of every stripe taken since. */
export async function rollbackToReserveMany(trx: Transaction<DB>): Promise<void> {
  await sql`rollback to savepoint reserve_many`.execute(trx);
}

/**
 * The CTE `pick` (stripe, remaining): the stripe of the budget that nobody else holds (SKIP LOCKED:
 * never waits) with at least `atLeast` left, nearest the home stripe, locked by this transaction;
 * no row when there is none. Every take from a free stripe starts here.
 */
export function freeStripePick(
  budgetId: string,
  stripes: number,
  home: number,
  atLeast: bigint,
): RawBuilder<unknown> {
  return sql`
    pick AS (
      SELECT stripe, remaining FROM budget_stripes
      WHERE budget_id = ${budgetId} AND remaining >= ${atLeast.toString()}::numeric
      ORDER BY (stripe - ${home}::int + ${stripes}::int) % ${stripes}::int
      LIMIT 1
      FOR UPDATE SKIP LOCKED
    )`;
}

/**
 * One statement: lock a stripe nobody holds that has room for `amount`, and take up to `wanted`
 * whole amounts from it. Answers how many it took (0: no free stripe has room). The stripe's
 * value is read under the lock that the same statement then updates under; the update re-checks
 * it, so what is answered is exactly what was taken.
 */
export async function takeFromFreeStripe(
  trx: Transaction<DB>,
  budgetId: string,
  stripes: number,
  home: number,
  amount: bigint,
  wanted: number,
): Promise<number> {
  const a = amount.toString();
  const query = sql<{ units: string }>`
    WITH ${freeStripePick(budgetId, stripes, home, amount)}
    UPDATE budget_stripes s
    SET remaining = s.remaining - least(div(pick.remaining, ${a}::numeric), ${wanted}::numeric) * ${a}::numeric
    FROM pick
    WHERE s.budget_id = ${budgetId} AND s.stripe = pick.stripe AND s.remaining = pick.remaining
    RETURNING least(div(pick.remaining, ${a}::numeric), ${wanted}::numeric)::text AS units`;
  const result = await trx.executeQuery(prepared('budget_take_free_stripe', query.compile(trx)));
  return Number(result.rows[0]?.units ?? 0);
}

/**
 * The CTEs `pick` and `take`: lock a stripe nobody holds that has room for `total`, nearest the
 * home stripe, and take `total` from it. `take` has one row (the stripe) or none (no free stripe
 * had room: nothing taken, nothing locked). For a caller that writes what it took in the same
 * statement (grantClaims).
 */
export function takeFromOneFreeStripe(
  budgetId: string,
  stripes: number,
  home: number,
  total: bigint,
): RawBuilder<unknown> {
  return sql`
    ${freeStripePick(budgetId, stripes, home, total)}, take AS (
      UPDATE budget_stripes s SET remaining = s.remaining - ${total.toString()}::numeric
      FROM pick
      WHERE s.budget_id = ${budgetId} AND s.stripe = pick.stripe AND s.remaining = pick.remaining
      RETURNING s.stripe
    )`;
}

/** Locks every stripe of the budget FOR UPDATE, in stripe order; answers them with what is left. */
export function lockAllStripes(trx: Transaction<DB>, budgetId: string) {
  return trx
    .selectFrom('budget_stripes')
    .select(['stripe', 'remaining'])
    .where('budget_id', '=', budgetId)
    .orderBy('stripe')
    .forUpdate()
    .execute();
}

/** Sets what is left on the given stripes (absolute values: the caller holds every stripe's lock). */
export async function setStripesRemaining(
  trx: Transaction<DB>,
  budgetId: string,
  changed: ReadonlyArray<{ stripe: number; remaining: bigint }>,
): Promise<void> {
  await sql`
      UPDATE budget_stripes s SET remaining = v.remaining
      FROM unnest(${changed.map((c) => c.stripe)}::int[], ${changed.map((c) => c.remaining.toString())}::numeric[]) AS v(stripe, remaining)
      WHERE s.budget_id = ${budgetId} AND s.stripe = v.stripe`.execute(trx);
}

/** Adds `amount` to one stripe of the budget. */
export async function addToStripe(
  trx: Transaction<DB>,
  budgetId: string,
  stripe: number,
  amount: bigint,
): Promise<void> {
  await trx
    .updateTable('budget_stripes')
    .set({ remaining: sql`remaining + ${amount.toString()}::numeric` })
    .where('budget_id', '=', budgetId)
    .where('stripe', '=', stripe)
    .execute();
}

/** Locks the given stripes FOR UPDATE in the one order (budget id, then stripe). */
export async function lockStripesInOrder(
  trx: Transaction<DB>,
  budgetIds: string[],
  stripeNumbers: number[],
): Promise<void> {
  await sql`
    SELECT s.stripe FROM budget_stripes s
    JOIN unnest(${budgetIds}::text[], ${stripeNumbers}::int[]) AS v(budget_id, stripe)
      ON v.budget_id = s.budget_id AND v.stripe = s.stripe
    ORDER BY s.budget_id COLLATE "C", s.stripe FOR UPDATE OF s`.execute(trx);
}

/** Adds each amount to its stripe (`budgetIds[i]`, `stripeNumbers[i]`, `amounts[i]`). */
export async function addToStripes(
  trx: Transaction<DB>,
  budgetIds: string[],
  stripeNumbers: number[],
  amounts: bigint[],
): Promise<void> {
  await sql`
    UPDATE budget_stripes s SET remaining = s.remaining + v.amount
    FROM unnest(${budgetIds}::text[], ${stripeNumbers}::int[], ${amounts.map((amount) => amount.toString())}::numeric[])
         AS v(budget_id, stripe, amount)
    WHERE s.budget_id = v.budget_id AND s.stripe = v.stripe`.execute(trx);
}
