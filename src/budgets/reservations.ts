// The reservation engine: takes amounts from a budget's stripes inside the caller's transaction,
// with `remaining >= amount` as the guard of every take, so no interleaving can overspend.
//
// A budget's stripes belong to an owner: the budget's pool, or a partner (migration 0041). On Citus
// a partner's completions take from the partner's own stripes, which live on the partner's shard
// (so a completion's take is one shard's write); when those are short, a refill moves an allotment
// from the pool to them; when the pool is short too, the budget's last units are shared out from
// all its stripes. On PostgreSQL and PGlite every completion takes from the pool's stripes, which
// serve a single crowd fastest there (stripeOwner; docs/scaling.md "Money on Citus").
import type { Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import { homeStripe } from '../domain/stripes.ts';
import { groupBy } from '../domain/group-by.ts';
import { inStripeOrder, sortedBy } from '../domain/lock-order.ts';
import { stripesPerPartner } from '../db/citus.ts';
import {
  POOL,
  addToStripes,
  ownersOfStripes,
  rollbackToReserveMany,
  savepointReserveMany,
  setStripesRemaining,
  stripesOf,
  takeFromFreeStripe,
  takeFromPool,
} from './reservation-store.ts';

// The CTE fragments a caller composes into its own statement (claims' grants and fixed completions).
export {
  freeStripeLock,
  freeStripePick,
  takeFromOneFreeStripe,
  takeFromStripe,
} from './reservation-store.ts';

export { POOL } from './reservation-store.ts';

/** Whose stripes a partner's completions take from: its own on Citus, else the budget's pool. */
export function stripeOwner(partnerId: string): string {
  return stripesPerPartner() ? partnerId : POOL;
}

/**
 * One amount to reserve from the stripes of `owner` (stripeOwner of the claim's partner); `key`
 * (the user) picks the stripe the search starts at.
 */
export interface ReservationRequest {
  amount: bigint;
  owner: string;
  key: string;
}

/**
 * Takes the amounts of many claims from one budget inside the caller's transaction; answers, per
 * request and in order, whether the budget covered it. No interleaving can overspend: every take
 * keeps `remaining >= 0` under the row lock (and a CHECK constraint says so too). Deadlock-free by
 * construction (the one lock order: budget, then owner with the pool first, then stripe):
 *  1. for each partner and amount, take as many whole amounts as a free stripe of the partner's
 *     holds, from stripes nobody else holds (SKIP LOCKED: never waits), nearest the home stripe,
 *     until covered;
 *  2. if that leaves some uncovered, roll back to the savepoint before step 1 (letting go of every
 *     stripe of this budget it took), and refill, partner by partner in id order: from a pool
 *     stripe nobody holds (SKIP LOCKED) with room for all the partner's requests, move half of it
 *     (all of it when that is less than four times what they need) to the partner's home stripe (waiting for that stripe in the one
 *     order). Step 1 again then covers every request: each partner's home stripe, held by this
 *     transaction, holds what its requests need. Partners' requests that a read without locks
 *     already finds short go to the refill at once (no step 1, no rollback);
 *  3. if a refill finds no such pool stripe (the budget's last units), roll back to the savepoint
 *     again, lock every stripe of the budget in the one order (the pool's, then each partner's),
 *     and share out what is left, request by request, gathering an amount from several stripes
 *     where needed.
 * A caller reserving from several budgets takes them in budget-id order (grantClaims does).
 */
export async function reserveMany(
  trx: Transaction<DB>,
  budgetId: string,
  stripes: number,
  requests: readonly ReservationRequest[],
): Promise<boolean[]> {
  if (requests.length === 0) return [];
  const owners = sortedBy(
    [...groupBy(requests.keys(), (i) => (requests[i] as ReservationRequest).owner)],
    ([owner]) => owner,
  );
  const pooled = owners.some(([owner]) => owner === POOL);
  // Partners' stripes that a read (no lock) finds short are refilled at once: trying the takes
  // first would only end in the rollback to the savepoint, on Citus the dearest statement of a
  // crowd's refill (12 ms against 0.5 for the read). The read only saves work: stripes it finds
  // enough in are tried as before, and a refill it asks for in a race is still exact.
  const tryFirst = pooled || (await ownersCovered(trx, budgetId, requests, owners));
  await savepointReserveMany(trx);
  if (tryFirst) {
    const first = await takeFromOwnersStripes(trx, budgetId, stripes, requests, owners);
    if (first) return first;
    await rollbackToReserveMany(trx);
  }
  // The pool's own requests have no pool to be refilled from: the last units, at once.
  if (pooled) return gatherFromAllStripes(trx, budgetId, requests);
  for (const [owner, indices] of owners) {
    const needed = indices.reduce((sum, i) => sum + (requests[i] as ReservationRequest).amount, 0n);
    const home = homeStripe((requests[indices[0] as number] as ReservationRequest).key, stripes);
    const moved = await takeFromPool(trx, budgetId, stripes, home, needed);
    if (moved === 0n) {
      await rollbackToReserveMany(trx);
      return gatherFromAllStripes(trx, budgetId, requests);
    }
    await addToStripes(trx, budgetId, owner, [{ stripe: home, amount: moved }]);
  }
  const refilled = await takeFromOwnersStripes(trx, budgetId, stripes, requests, owners);
  if (refilled) return refilled;
  // Not reached (see step 2), but if it were, the last-units path below is still exact.
  await rollbackToReserveMany(trx);
  return gatherFromAllStripes(trx, budgetId, requests);
}

/**
 * Whether each owner's stripes, as a read without locks finds them now, hold every request of its
 * (whole amounts from single stripes, as step 1 takes them).
 */
async function ownersCovered(
  trx: Transaction<DB>,
  budgetId: string,
  requests: readonly ReservationRequest[],
  owners: ReadonlyArray<readonly [string, number[]]>,
): Promise<boolean> {
  for (const [owner, indices] of owners) {
    const left = (await stripesOf(trx, budgetId, owner, false)).map((r) => BigInt(r.remaining));
    for (const [amount, same] of groupBy(indices, (i) => (requests[i] as ReservationRequest).amount)) {
      let wanted = BigInt(same.length);
      for (let s = 0; s < left.length && wanted > 0n; s += 1) {
        const units = (left[s] as bigint) / amount < wanted ? (left[s] as bigint) / amount : wanted;
        left[s] = (left[s] as bigint) - units * amount;
        wanted -= units;
      }
      if (wanted > 0n) return false;
    }
  }
  return true;
}

/** Step 1 of reserveMany: every request taken from its owner's free stripes, or undefined (some were short). */
async function takeFromOwnersStripes(
  trx: Transaction<DB>,
  budgetId: string,
  stripes: number,
  requests: readonly ReservationRequest[],
  owners: ReadonlyArray<readonly [string, number[]]>,
): Promise<boolean[] | undefined> {
  for (const [owner, indices] of owners) {
    const home = homeStripe((requests[indices[0] as number] as ReservationRequest).key, stripes);
    // The requests' indices by amount (bigint keys compare by value).
    const byAmount = groupBy(indices, (i) => (requests[i] as ReservationRequest).amount);
    for (const [amount, same] of byAmount) {
      let done = 0;
      while (done < same.length) {
        const at = { budgetId, owner, stripes, home };
        const units = await takeFromFreeStripe(trx, at, amount, same.length - done);
        if (units === 0) return undefined;
        done += units;
      }
    }
  }
  return requests.map(() => true);
}

/**
 * Step 3 of reserveMany: every stripe of the budget locked in the one order (the pool's first, then
 * each partner's, one statement per owner so that on Citus each names one shard), what is left
 * shared out in request order: each request from its partner's stripes first, then the pool's,
 * then other partners'.
 */
async function gatherFromAllStripes(
  trx: Transaction<DB>,
  budgetId: string,
  requests: readonly ReservationRequest[],
): Promise<boolean[]> {
  const left: Array<{ owner: string; stripe: number; remaining: bigint; changed: boolean }> = [];
  for (const owner of await ownersOfStripes(trx, budgetId)) {
    for (const r of await stripesOf(trx, budgetId, owner, true)) {
      left.push({ owner, stripe: r.stripe, remaining: BigInt(r.remaining), changed: false });
    }
  }
  let total = left.reduce((sum, s) => sum + s.remaining, 0n);
  const rank = (owner: string, asking: string) => (owner === asking ? 0 : owner === POOL ? 1 : 2);
  const covered = requests.map((request) => {
    if (request.amount > total) return false;
    total -= request.amount;
    const candidates = [...left].sort((a, b) => rank(a.owner, request.owner) - rank(b.owner, request.owner));
    // One stripe with room if there is one (fewer rows to write), else gather from several.
    const whole = candidates.find((s) => s.remaining >= request.amount);
    let missing = request.amount;
    for (const s of whole ? [whole] : candidates) {
      const part = s.remaining < missing ? s.remaining : missing;
      if (part === 0n) continue;
      s.remaining -= part;
      s.changed = true;
      missing -= part;
      if (missing === 0n) break;
    }
    return true;
  });
  // Absolute values are safe here: every stripe of the budget is locked by this transaction.
  for (const [owner, changed] of groupBy(
    left.filter((s) => s.changed),
    (s) => s.owner,
  )) {
    await setStripesRemaining(trx, budgetId, owner, changed);
  }
  return covered;
}

/** One reservation given back: to the home stripe of its partner's owner (stripeOwner) of the budget. */
export interface Release {
  budgetId: string;
  stripes: number;
  partnerId: string;
  key: string;
  amount: bigint;
}

/**
 * Gives released reservations back, each to its user's home stripe among its partner's stripes of
 * the budget (created if the partner has none there), locking the stripes in the one order
 * (src/domain/lock-order.ts: budget, owner, stripe), so a release of several claims never waits
 * for one stripe while holding another out of order. One lock and one write per budget and partner.
 */
export async function releaseMany(trx: Transaction<DB>, releases: readonly Release[]): Promise<void> {
  const sums = new Map<string, { budgetId: string; owner: string; stripe: number; amount: bigint }>();
  for (const r of releases) {
    const stripe = homeStripe(r.key, r.stripes);
    const owner = stripeOwner(r.partnerId);
    const at = `${r.budgetId}\u0000${owner}\u0000${stripe}`;
    const sum = sums.get(at) ?? { budgetId: r.budgetId, owner, stripe, amount: 0n };
    sum.amount += r.amount;
    sums.set(at, sum);
  }
  const ordered = inStripeOrder([...sums.values()]);
  for (const group of groupBy(ordered, (o) => `${o.budgetId}\u0000${o.owner}`).values()) {
    const { budgetId, owner } = group[0] as (typeof ordered)[number];
    await addToStripes(trx, budgetId, owner, group);
  }
}

/** Gives one released reservation back. */
export async function release(trx: Transaction<DB>, r: Release): Promise<void> {
  await releaseMany(trx, [r]);
}
