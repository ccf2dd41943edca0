// Rewards of completions made before the user linked: recorded as deferred rewards (nothing taken
// from a budget), granted when the user links (the link handler, or the worker's link sweep).
import type { Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import { newId } from '../domain/ids.ts';
import { sortedBy } from '../domain/lock-order.ts';
import type { UserLinkedHandler } from '../linking/service.ts';
import { grantClaims } from './grants.ts';
import type { Grant } from './grants.ts';
import { grantTickets } from './tickets.ts';
import { transitionClaims } from './transitions.ts';
import {
  claimOfPartnerUser,
  deleteDeferredRewardsOf,
  insertRefusedClaims,
  setAccountOfUnlinkedClaims,
} from './completion-store.ts';
import type { DeferredRewardRow } from './completion-store.ts';

export type { DeferredRewardRow } from './completion-store.ts';

/** How long a completion waits for its user to link (a legacy RESERVED claim too) before it is no longer rewarded (30 days). */
export const DEFAULT_RESERVATION_TTL_SECONDS = 30 * 24 * 3600;

/**
 * Grants deferred rewards that their caller has just deleted (so each is granted once, whoever
 * races: the deletion holds the row lock, and a second deleter finds nothing). The users must be
 * linked by now (in this transaction or before). A reward whose completion is older than
 * `ttlSeconds` is not paid: a REJECTED claim with reason EXPIRED (a ticket: not issued). Others go
 * through grantClaims like any completion: caps, budget (REJECTED with BUDGET_EXHAUSTED when it
 * ran out meanwhile) and one claim per (user, source, period).
 */
export async function grantDeferredRewards(
  trx: Transaction<DB>,
  rows: readonly DeferredRewardRow[],
  now: Date,
  ttlSeconds: number,
): Promise<void> {
  if (rows.length === 0) return;
  const tooOld = (r: DeferredRewardRow) =>
    r.completed_at.getTime() < (r.linked_at ?? now).getTime() - ttlSeconds * 1000;
  const sorted = sortedBy(
    rows,
    (r) => `${r.partner_id}\u0000${r.partner_uid}\u0000${r.source}\u0000${r.source_id}\u0000${r.period_key}`,
  );
  const fresh = sorted.filter((r) => !tooOld(r));
  const expired = sorted.filter((r) => tooOld(r) && r.kind === 'CLAIM');
  await grantTickets(
    trx,
    fresh
      .filter((r) => r.kind === 'TICKET')
      .map((r) => ({
        partnerId: r.partner_id,
        partnerUid: r.partner_uid,
        promotionId: r.promotion_id,
        missionId: r.source_id,
        budgetId: r.budget_id,
        periodKey: r.period_key,
        now,
      })),
  );
  const grantOf = (r: DeferredRewardRow): Grant => ({
    budget: { id: r.budget_id, asset_id: r.asset_id, stripes: r.stripes },
    amount: BigInt(r.amount as string),
    partnerId: r.partner_id,
    partnerUid: r.partner_uid,
    promotionId: r.promotion_id,
    source: r.source,
    sourceId: r.source_id,
    periodKey: r.period_key,
    now,
    completedBeforeLink: r.completed_at,
  });
  if (expired.length > 0) {
    await insertRefusedClaims(
      trx,
      expired.map(grantOf),
      expired.map(() => newId('clm')),
      expired.map(() => 'EXPIRED'),
    );
  }
  await grantClaims(trx, fresh.filter((r) => r.kind === 'CLAIM').map(grantOf));
}

/** Deletes the deferred rewards of one partner user (locking them) for grantDeferredRewards. */
export async function takeDeferredRewards(
  trx: Transaction<DB>,
  partnerId: string,
  partnerUid: string,
): Promise<DeferredRewardRow[]> {
  return deleteDeferredRewardsOf(trx, partnerId, partnerUid);
}

/**
 * When a partner user links (inside the connect transaction): the rewards of their completions
 * recorded while unlinked are granted now (grantDeferredRewards), and claims of before migration
 * 0008 that wait in RESERVED get the account and are requested for payout.
 */
export function releaseWaitingClaims(
  clock: Clock,
  ttlSeconds: number = DEFAULT_RESERVATION_TTL_SECONDS,
): UserLinkedHandler {
  return async (trx, event) => {
    const now = clock.now();
    await grantDeferredRewards(
      trx,
      await takeDeferredRewards(trx, event.partnerId, event.partnerUid),
      now,
      ttlSeconds,
    );
    await setAccountOfUnlinkedClaims(trx, event.partnerId, event.partnerUid, event.accountId, now);
    const mine = claimOfPartnerUser(event.partnerId, event.partnerUid);
    await transitionClaims(
      trx,
      { where: mine },
      {
        from: 'RESERVED',
        to: 'REQUESTED',
        why: 'user linked',
        at: now,
        nextAttemptAt: now,
        account: event.accountId,
      },
    );
  };
}

/**
 * Call inside the connect transaction when a partner user links to a platform account: the rewards
 * of the user's completions recorded while unlinked are granted (caps, budget) and requested.
 */
export function onUserLinked(
  trx: Transaction<DB>,
  e: { partnerId: string; partnerUid: string; accountId: string },
  now: Date = new Date(),
  ttlSeconds?: number,
): Promise<void> {
  return releaseWaitingClaims({ now: () => now }, ttlSeconds)(trx, e);
}
