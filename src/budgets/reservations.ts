// The reservation engine: takes amounts from a budget's stripes inside the caller's transaction,
// with `remaining >= amount` as the guard of every take, so no interleaving can overspend.
import type { Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import { homeStripe } from '../domain/stripes.ts';
import { groupBy } from '../domain/group-by.ts';
import { inStripeOrder } from '../domain/lock-order.ts';
import {
  addToStripe,
  addToStripes,
  lockAllStripes,
  lockStripesInOrder,
  rollbackToReserveMany,
  savepointReserveMany,
  setStripesRemaining,
  takeFromFreeStripe,
} from './reservation-store.ts';

// The CTE fragments a caller composes into its own statement (claims' grants and fixed completions).
export { freeStripePick, takeFromOneFreeStripe } from './reservation-store.ts';

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
  await savepointReserveMany(trx);
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
  await rollbackToReserveMany(trx);
  return gatherFromAllStripes(trx, budgetId, requests);
}

/** Step 2 of reserveMany: every stripe locked in stripe order, what is left shared out in order. */
async function gatherFromAllStripes(
  trx: Transaction<DB>,
  budgetId: string,
  requests: readonly ReservationRequest[],
): Promise<boolean[]> {
  const rows = await lockAllStripes(trx, budgetId);
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
    await setStripesRemaining(trx, budgetId, changed);
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
  await addToStripe(trx, budgetId, homeStripe(key, stripes), amount);
}

/**
 * Gives many released reservations back (each to its user's home stripe), in one statement that
 * locks the stripes in the one order (src/domain/lock-order.ts: budget id, then stripe), so a
 * release of several claims never waits for one stripe while holding another out of order.
 */
export async function releaseMany(
  trx: Transaction<DB>,
  releases: ReadonlyArray<{ budgetId: string; stripes: number; key: string; amount: bigint }>,
): Promise<void> {
  const sums = new Map<string, { budgetId: string; stripe: number; amount: bigint }>();
  for (const r of releases) {
    const stripe = homeStripe(r.key, r.stripes);
    const at = `${r.budgetId}\u0000${stripe}`;
    const sum = sums.get(at) ?? { budgetId: r.budgetId, stripe, amount: 0n };
    sum.amount += r.amount;
    sums.set(at, sum);
  }
  const ordered = inStripeOrder([...sums.values()]);
  if (ordered.length === 0) return;
  const budgetIds = ordered.map((o) => o.budgetId);
  const stripeNumbers = ordered.map((o) => o.stripe);
  // Two statements: the locks in stripe order first, then the update. (One statement with the
  // locks in a CTE loses its columns between Citus's steps, docs/scaling.md "On Citus".)
  await lockStripesInOrder(trx, budgetIds, stripeNumbers);
  await addToStripes(
    trx,
    budgetIds,
    stripeNumbers,
    ordered.map((o) => o.amount),
  );
}
