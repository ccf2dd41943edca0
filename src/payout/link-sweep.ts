// The link sweep: connect grants a user's deferred rewards inside its transaction, but a completion
// whose achieve transaction commits just after the link could see neither the mapping (achieve read
// it before connect committed) nor be seen by connect (it was not committed yet). Left alone its
// reward would wait for a link that already happened. The reward worker runs this sweep every
// cycle, over the links of the last hour (a race lasts as long as one transaction).
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import { DEFAULT_RESERVATION_TTL_SECONDS, grantDeferredRewards } from '../claims/deferred-rewards.ts';
import type { DeferredRewardRow } from '../claims/deferred-rewards.ts';
import { transitionClaims } from '../claims/transitions.ts';

export const LINK_SWEEP_WINDOW_MS = 60 * 60 * 1000;

/**
 * Grants the deferred rewards of users linked since `sinceMs` ago (and requests the RESERVED claims
 * of such users, left from before migration 0008); answers how many it handled. SKIP LOCKED: a
 * reward that a connect (or another sweep) is granting at this moment is theirs.
 */
export async function requestClaimsOfLinkedUsers(
  db: Kysely<DB>,
  clock: Clock,
  options: { sinceMs?: number; limit?: number; ttlSeconds?: number } = {},
): Promise<number> {
  const now = clock.now();
  const since = new Date(now.getTime() - (options.sinceMs ?? LINK_SWEEP_WINDOW_MS));
  const limit = options.limit ?? 1000;
  return db.transaction().execute(async (trx) => {
    const { rows: deferred } = await sql<DeferredRewardRow>`
      DELETE FROM deferred_rewards d USING budgets b, user_mappings m
      WHERE b.id = d.budget_id AND m.partner_id = d.partner_id AND m.partner_uid = d.partner_uid AND d.id IN (
        SELECT r.id FROM user_mappings m
        JOIN deferred_rewards r ON r.partner_id = m.partner_id AND r.partner_uid = m.partner_uid
        WHERE m.created_at >= ${since}
        ORDER BY r.id
        LIMIT ${limit}
        FOR UPDATE OF r SKIP LOCKED)
      RETURNING d.id, d.kind, d.partner_id, d.partner_uid, d.promotion_id, d.source, d.source_id, d.period_key, d.budget_id,
                d.amount::text AS amount, d.completed_at, b.asset_id, b.stripes, m.created_at AS linked_at`.execute(
      trx,
    );
    await grantDeferredRewards(trx, deferred, now, options.ttlSeconds ?? DEFAULT_RESERVATION_TTL_SECONDS);

    const due = await trx
      .selectFrom('claims as c')
      .innerJoin('user_mappings as m', (join) =>
        join.onRef('m.partner_id', '=', 'c.partner_id').onRef('m.partner_uid', '=', 'c.partner_uid'),
      )
      .select('c.id')
      .where('c.status', '=', 'RESERVED')
      .where('m.created_at', '>=', since)
      .orderBy('c.id')
      .limit(limit)
      .forUpdate('c')
      .skipLocked()
      .execute();
    await transitionClaims(
      trx,
      { ids: due.map((c) => c.id) },
      {
        from: 'RESERVED',
        to: 'REQUESTED',
        why: 'user linked',
        at: now,
        nextAttemptAt: now,
        account: 'FROM_LINK',
      },
    );
    return deferred.length + due.length;
  });
}
