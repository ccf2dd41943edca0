// The link sweep: connect grants a user's deferred rewards inside its transaction, but a completion
// whose achieve transaction commits just after the link could see neither the mapping (achieve read
// it before connect committed) nor be seen by connect (it was not committed yet). Left alone its
// reward would wait for a link that already happened. The reward worker runs this sweep every
// cycle, over the links of the last hour (a race lasts as long as one transaction).
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import { DEFAULT_RESERVATION_TTL_SECONDS, grantDeferredRewards } from '../claims/deferred-rewards.ts';
import { transitionClaims } from '../claims/transitions.ts';
import { lockReservedClaimsOfLinks, partnersLinkedSince, takeDeferredRewardsOfLinks } from './store.ts';

export const LINK_SWEEP_WINDOW_MS = 60 * 60 * 1000;

/**
 * Grants the deferred rewards of users linked since `sinceMs` ago (and requests the RESERVED claims
 * of such users, left from before migration 0008); answers how many it handled. SKIP LOCKED: a
 * reward that a connect (or another sweep) is granting at this moment is theirs.
 */
export async function grantRewardsOfRecentLinks(
  db: Kysely<DB>,
  clock: Clock,
  options: { sinceMs?: number; limit?: number; ttlSeconds?: number } = {},
): Promise<number> {
  const now = clock.now();
  const since = new Date(now.getTime() - (options.sinceMs ?? LINK_SWEEP_WINDOW_MS));
  let left = options.limit ?? 1000;
  // Partner by partner: each sweep's row locks stay on one partner's shard, which is what Citus
  // can lock (docs/scaling.md "On Citus"); on PostgreSQL it is the same work in smaller pieces.
  const partners = await partnersLinkedSince(db, since);
  let handled = 0;
  for (const partnerId of partners) {
    if (left <= 0) break;
    const done = await sweepPartner(db, partnerId, since, now, left, options.ttlSeconds);
    handled += done;
    left -= done;
  }
  return handled;
}

/** grantRewardsOfRecentLinks for the users of one partner, at most `limit` of each kind. */
async function sweepPartner(
  db: Kysely<DB>,
  partnerId: string,
  since: Date,
  now: Date,
  limit: number,
  ttlSeconds: number | undefined,
): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const deferred = await takeDeferredRewardsOfLinks(trx, partnerId, since, limit);
    await grantDeferredRewards(trx, deferred, now, ttlSeconds ?? DEFAULT_RESERVATION_TTL_SECONDS);

    const due = await lockReservedClaimsOfLinks(trx, partnerId, since, limit);
    await transitionClaims(
      trx,
      { ids: due.map((c) => c.id) },
      {
        from: 'RESERVED',
        to: 'REQUESTED',
        why: 'user linked',
        at: now,
        nextAttemptAt: now,
        // Each claim's account from the link read with its lock (an update of claims may not join
        // the mappings on Citus).
        account: new Map(due.map((c) => [c.id, c.account_id])),
      },
    );
    return deferred.length + due.length;
  });
}
