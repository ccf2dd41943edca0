// Expiry of legacy RESERVED claims whose user never linked: REJECTED, their amounts back to the budget.
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import { release } from '../budgets/reservations.ts';
import { transitionClaims } from './transitions.ts';

/**
 * RESERVED claims older than `ttlSeconds` (their user never linked) are REJECTED by expiry and
 * their amounts return to the budget. Runs in the payout worker's loop; SKIP LOCKED keeps workers
 * apart and away from a claim that a connect is releasing at this moment.
 */
export async function expireReservations(db: Kysely<DB>, clock: Clock, ttlSeconds: number): Promise<number> {
  const now = clock.now();
  const cutoff = new Date(now.getTime() - ttlSeconds * 1000);
  return db.transaction().execute(async (trx) => {
    const expired = await trx
      .selectFrom('claims as c')
      .innerJoin('budgets as b', 'b.id', 'c.budget_id')
      .select(['c.id', 'c.amount', 'c.budget_id', 'c.partner_id', 'c.partner_uid', 'b.stripes'])
      .where('c.status', '=', 'RESERVED')
      .where('c.created_at', '<', cutoff)
      // A user linked meanwhile is not expired: the link sweep requests the claim instead.
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('user_mappings as m')
              .select('m.account_id')
              .whereRef('m.partner_id', '=', 'c.partner_id')
              .whereRef('m.partner_uid', '=', 'c.partner_uid'),
          ),
        ),
      )
      .limit(500)
      .forUpdate('c')
      .skipLocked()
      .execute();
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
    for (const claim of expired)
      await release(
        trx,
        claim.budget_id,
        BigInt(claim.amount),
        `${claim.partner_id}:${claim.partner_uid}`,
        claim.stripes,
      );
    return expired.length;
  });
}
