// Budget striping: a budget's remaining amount is split into N stripes (sub-allotments, rows of
// budget_stripes) so that a crowd completing one mission queues on N rows instead of one. Every
// write is a guarded single statement (`remaining >= amount`, re-checked under the row lock, and
// CHECK (remaining >= 0) on the column), so no interleaving can overspend: the sum of the stripes
// plus the amounts of live claims is always the budget's total.
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';

export const DEFAULT_STRIPES = 16;
export const MAX_STRIPES = 64;

/** Splits `amount` over `stripes` stripes: equal shares, the remainder to the first ones. */
export function splitOverStripes(amount: bigint, stripes: number): bigint[] {
  const n = BigInt(stripes);
  const share = amount / n;
  const extra = amount % n;
  return Array.from({ length: stripes }, (_, i) => share + (BigInt(i) < extra ? 1n : 0n));
}

/** The stripe a user starts at: spreads a crowd evenly, and is the same for the same user. */
export function homeStripe(key: string, stripes: number): number {
  return createHash('sha256').update(key).digest().readUInt32BE(0) % stripes;
}

export interface StripedBudget {
  id: string;
  stripes: number;
}

// Each attempt runs inside a savepoint. PostgreSQL keeps the row lock of an UPDATE that waited for a
// row and then found the guard false; rolling back to the savepoint lets that lock go, so a
// transaction never waits for a stripe while holding another stripe of the same budget it did not
// use. That is what makes the waits below deadlock-free.
const SAVEPOINT = 'reward_reserve';

async function attempt(trx: Transaction<DB>, run: () => Promise<boolean>): Promise<boolean> {
  await sql`savepoint reward_reserve`.execute(trx);
  if (await run()) return true;
  await sql.raw(`rollback to savepoint ${SAVEPOINT}`).execute(trx);
  return false;
}

function takeFromStripe(trx: Transaction<DB>, budgetId: string, stripe: number, amount: string): Promise<boolean> {
  return trx
    .updateTable('budget_stripes')
    .set({ remaining: sql`remaining - ${amount}::numeric` })
    .where('budget_id', '=', budgetId)
    .where('stripe', '=', stripe)
    .where(sql<boolean>`remaining >= ${amount}::numeric`)
    .returning('stripe')
    .executeTakeFirst()
    .then((row) => row !== undefined);
}

/** Other stripes tried one by one (each a blocking wait on one row) before gathering. */
const MAX_SINGLE_STRIPE_TRIES = 3;

/**
 * Takes `amount` from the budget inside the caller's transaction; false when the budget cannot
 * cover it. The locks are held until the caller commits or rolls back.
 *  1. the user's home stripe (a hash of the user): one savepoint and one UPDATE, the path of a crowd;
 *  2. else, from a snapshot of all stripes: nothing committed covers it -> false at once, without
 *     locks (what an uncommitted reservation holds is still counted in the snapshot, so this never
 *     refuses an amount that the committed state could give);
 *  3. else up to three other stripes that hold enough, nearest the home stripe first;
 *  4. else gather it from several stripes, locking all of them in stripe order (the one global order
 *     in which anything locks more than one stripe: gathering and top-ups).
 */
export async function reserveFromBudget(
  trx: Transaction<DB>,
  budget: StripedBudget,
  amount: bigint,
  userKey: string,
): Promise<boolean> {
  const value = amount.toString();
  const home = homeStripe(userKey, budget.stripes);
  if (await attempt(trx, () => takeFromStripe(trx, budget.id, home, value))) return true;

  const snapshot = await trx
    .selectFrom('budget_stripes')
    .select(['stripe', sql<string>`remaining::text`.as('remaining')])
    .where('budget_id', '=', budget.id)
    .execute();
  const total = snapshot.reduce((sum, row) => sum + BigInt(row.remaining), 0n);
  if (total < amount) return false;

  const distance = (stripe: number) => (stripe - home + budget.stripes) % budget.stripes;
  const candidates = snapshot
    .filter((row) => row.stripe !== home && BigInt(row.remaining) >= amount)
    .sort((a, b) => distance(a.stripe) - distance(b.stripe))
    .slice(0, MAX_SINGLE_STRIPE_TRIES);
  for (const candidate of candidates) {
    if (await attempt(trx, () => takeFromStripe(trx, budget.id, candidate.stripe, value))) return true;
  }

  return attempt(trx, async () => {
    const rows = await trx
      .selectFrom('budget_stripes')
      .select(['stripe', sql<string>`remaining::text`.as('remaining')])
      .where('budget_id', '=', budget.id)
      .orderBy('stripe')
      .forUpdate()
      .execute();
    let missing = amount;
    const takes: Array<[number, bigint]> = [];
    for (const row of rows) {
      if (missing === 0n) break;
      const available = BigInt(row.remaining);
      const part = available < missing ? available : missing;
      if (part > 0n) takes.push([row.stripe, part]);
      missing -= part;
    }
    if (missing > 0n) return false;
    for (const [stripe, part] of takes) {
      await trx
        .updateTable('budget_stripes')
        .set({ remaining: sql`remaining - ${part.toString()}::numeric` })
        .where('budget_id', '=', budget.id)
        .where('stripe', '=', stripe)
        .execute();
    }
    return true;
  });
}

/** Gives a released reservation back to the budget (to the user's home stripe). */
export async function releaseToBudget(
  trx: Transaction<DB>,
  budget: StripedBudget,
  amount: bigint,
  userKey: string,
): Promise<void> {
  await trx
    .updateTable('budget_stripes')
    .set({ remaining: sql`remaining + ${amount.toString()}::numeric` })
    .where('budget_id', '=', budget.id)
    .where('stripe', '=', homeStripe(userKey, budget.stripes))
    .execute();
}

/** Adds to every stripe its share of a top-up, in stripe order (the global order, see above). */
export async function addToStripes(trx: Transaction<DB>, budget: StripedBudget, amount: bigint): Promise<void> {
  for (const [stripe, share] of splitOverStripes(amount, budget.stripes).entries()) {
    if (share === 0n) continue;
    await trx
      .updateTable('budget_stripes')
      .set({ remaining: sql`remaining + ${share.toString()}::numeric` })
      .where('budget_id', '=', budget.id)
      .where('stripe', '=', stripe)
      .execute();
  }
}
