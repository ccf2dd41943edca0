// The reservation engine: takes amounts from a budget's stripes inside the caller's transaction,
// with `remaining >= amount` as the guard of every take, so no interleaving can overspend.
import { sql } from 'kysely';
import type { RawBuilder, Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import { prepared } from '../db/connection.ts';
import { homeStripe } from '../domain/stripes.ts';
import { groupBy } from '../domain/group-by.ts';

/** One amount to reserve; `key` (the user) picks the stripe the search starts at. */
export interface ReservationRequest {
  amount: bigint;
  key: string;
}

/**
 * Takes the amounts of many claims from one budget inside the caller's transaction; answers, per
 * request and in order, whether the budget covered it. No interleaving can overspend: every take
 * keeps `remaining >= 0` under the row lock (and a CHECK constraint says so too). Deadlock-free by
 * construction:
 *  1. for each amount, take as many whole amounts as a free stripe holds, from stripes nobody
 *     else holds (SKIP LOCKED: never waits), nearest the batch's home stripe, until covered;
 *  2. if that leaves some uncovered (the free stripes are short: the budget's last crumbs, or an
 *     amount larger than a stripe), roll back to the savepoint before step 1, which lets go of
 *     every stripe it took, then lock all the stripes in stripe order (waiting, but in one order
 *     for everybody, holding no other stripe of this budget) and share out what is left, request
 *     by request, gathering an amount from several stripes where needed.
 * A caller reserving from several budgets takes them in budget-id order (grantClaims does).
 */
export async function reserveMany(
  trx: Transaction<DB>,
  budgetId: string,
  stripes: number,
  requests: readonly ReservationRequest[],
): Promise<boolean[]> {
  if (requests.length === 0) return [];
  const covered = requests.map(() => false);
  // The requests' indices by amount (bigint keys compare by value).
  const byAmount = groupBy(requests.keys(), (i) => (requests[i] as ReservationRequest).amount);
  const home = homeStripe(requests[0]?.key ?? '', stripes);
  await sql`savepoint reserve_many`.execute(trx);
  let short = false;
  for (const [amount, indices] of byAmount) {
    let done = 0;
    while (done < indices.length) {
      const units = await takeFromFreeStripe(trx, budgetId, stripes, home, amount, indices.length - done);
      if (units === 0) break;
      for (const i of indices.slice(done, done + units)) covered[i] = true;
      done += units;
    }
    if (done < indices.length) {
      short = true;
      break;
    }
  }
  if (!short) return covered;
  await sql`rollback to savepoint reserve_many`.execute(trx);
  return gatherFromAllStripes(trx, budgetId, requests);
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
async function takeFromFreeStripe(
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

/** Step 2 of reserveMany: every stripe locked in stripe order, what is left shared out in order. */
async function gatherFromAllStripes(
  trx: Transaction<DB>,
  budgetId: string,
  requests: readonly ReservationRequest[],
): Promise<boolean[]> {
  const rows = await trx
    .selectFrom('budget_stripes')
    .select(['stripe', 'remaining'])
    .where('budget_id', '=', budgetId)
    .orderBy('stripe')
    .forUpdate()
    .execute();
  const left = rows.map((r) => ({ stripe: r.stripe, remaining: BigInt(r.remaining), changed: false }));
  let total = left.reduce((sum, s) => sum + s.remaining, 0n);
  const covered = requests.map((request) => {
    if (request.amount > total) return false;
    total -= request.amount;
    // One stripe with room if there is one (fewer rows to write), else gather from several.
    const whole = left.find((s) => s.remaining >= request.amount);
    let missing = request.amount;
    for (const s of whole ? [whole] : left) {
      const part = s.remaining < missing ? s.remaining : missing;
      if (part === 0n) continue;
      s.remaining -= part;
      s.changed = true;
      missing -= part;
      if (missing === 0n) break;
    }
    return true;
  });
  const changed = left.filter((s) => s.changed);
  if (changed.length > 0) {
    // Absolute values are safe here: every stripe of the budget is locked by this transaction.
    await sql`
      UPDATE budget_stripes s SET remaining = v.remaining
      FROM unnest(${changed.map((c) => c.stripe)}::int[], ${changed.map((c) => c.remaining.toString())}::numeric[]) AS v(stripe, remaining)
      WHERE s.budget_id = ${budgetId} AND s.stripe = v.stripe`.execute(trx);
  }
  return covered;
}

/** Gives a released reservation back to the budget. */
export async function release(
  trx: Transaction<DB>,
  budgetId: string,
  amount: bigint,
  key: string,
  stripes: number,
): Promise<void> {
  await trx
    .updateTable('budget_stripes')
    .set({ remaining: sql`remaining + ${amount.toString()}::numeric` })
    .where('budget_id', '=', budgetId)
    .where('stripe', '=', homeStripe(key, stripes))
    .execute();
}
