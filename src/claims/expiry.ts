// Expiry of legacy RESERVED claims whose user never linked: REJECTED, their amounts back to the budget.
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import { releaseMany } from '../budgets/reservations.ts';
import { transitionClaims } from './transitions.ts';
import { linkedUsers } from '../linking/links.ts';
import { lockExpiredReservations } from './store.ts';

/**
 * RESERVED claims older than `ttlSeconds` (their user never linked) are REJECTED by expiry and
 * their amounts return to the budget. Runs in the payout worker's loop; SKIP LOCKED keeps workers
 * apart and away from a claim that a connect is releasing at this moment.
 */
export async function expireReservations(db: Kysely<DB>, clock: Clock, ttlSeconds: number): Promise<number> {
  const now = clock.now();
  const cutoff = new Date(now.getTime() - ttlSeconds * 1000);
  return db.transaction().execute(async (trx) => {
    const due = await lockExpiredReservations(trx, cutoff);
    // A user linked meanwhile is not expired: the link sweep requests the claim instead. Asked
    // after the lock, in a statement of its own: on Citus a row lock may not join the partners'
    // shards (docs/scaling.md "On Citus"); the claims stay locked, so the answer holds.
    const linked = await linkedUsers(
      trx,
      due.map((c) => ({ partnerId: c.partner_id, partnerUid: c.partner_uid })),
    );
    const expired = due.filter((_, i) => !linked[i]);
    if (expired.length === 0) return 0;
    await transitionClaims(
      trx,
      { ids: expired.map((c) => c.id) },
      {
        from: 'RESERVED',
        to: 'REJECTED',
        why: 'expired: the user did not link in time',
        at: now,
        reason: 'EXPIRED',
      },
    );
    await releaseMany(
      trx,
      expired.map((claim) => ({
        budgetId: claim.budget_id,
        stripes: claim.stripes,
        partnerId: claim.partner_id,
        key: `${claim.partner_id}:${claim.partner_uid}`,
        amount: BigInt(claim.amount),
      })),
    );
    return expired.length;
  });
}
