// Operator use cases on claims: the allowed manual moves, listings and a claim's history.
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import { canMove } from '../domain/claims.ts';
import { formatAmount } from '../domain/amounts.ts';
import { claimAwaitsLink, claimNotFound, illegalClaimTransition } from '../error-factories.ts';
import { release } from '../budgets/reservations.ts';
import { transitionClaims } from './transitions.ts';
import { lockClaimWithStripes, selectClaimEvents, selectClaimPartner, selectClaims } from './store.ts';
import type { ClaimFilter } from './store.ts';

export type { ClaimFilter } from './store.ts';

/** An operator's move of one claim: RESERVED -> REJECTED (releases the budget), FAILED -> REQUESTED. */
export async function moveClaim(
  db: Kysely<DB>,
  clock: Clock,
  claimId: string,
  to: 'REJECTED' | 'REQUESTED',
  reason: string,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const claim = await lockClaimWithStripes(trx, claimId);
    if (!claim) throw claimNotFound(claimId);
    if (!canMove(claim.status, to)) throw illegalClaimTransition(claim.status, to);
    if (to === 'REQUESTED' && claim.account_id === null) throw claimAwaitsLink();
    const now = clock.now();
    const retry = to === 'REQUESTED' ? { nextAttemptAt: now, attempts: 0 } : {};
    await transitionClaims(
      trx,
      { ids: [claimId] },
      { from: claim.status, to, why: reason, at: now, reason, ...retry },
    );
    if (to === 'REJECTED')
      await release(trx, {
        budgetId: claim.budget_id,
        stripes: claim.stripes,
        partnerId: claim.partner_id,
        key: `${claim.partner_id}:${claim.partner_uid}`,
        amount: BigInt(claim.amount),
      });
  });
}

export async function listClaims(db: Kysely<DB>, filter: ClaimFilter, limit: number, offset: number) {
  const rows = await selectClaims(db, filter, limit, offset);
  return rows.map((r) => ({
    id: r.id,
    status: r.status,
    amount: formatAmount(r.amount, r.decimals ?? 0),
    assetSymbol: r.symbol,
    decimals: r.decimals ?? 0,
    reason: r.reason,
    source: r.source,
    sourceId: r.source_id,
    periodKey: r.period_key,
    missionKey: r.mission_key ?? null,
    missionTitle: r.mission_title ?? null,
    partnerId: r.partner_id,
    partnerUid: r.partner_uid,
    accountId: r.account_id,
    promotionId: r.promotion_id,
    budgetId: r.budget_id,
    attempts: r.attempts,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
    completedBeforeLink: r.completed_before_link?.toISOString() ?? null,
  }));
}

export async function claimHistory(db: Kysely<DB>, claimId: string) {
  const [claim] = await selectClaimPartner(db, claimId);
  if (!claim) throw claimNotFound(claimId);
  // Named by its partner too: on Citus the history lives on the partner's shard (docs/scaling.md).
  const events = await selectClaimEvents(db, claim.partner_id, claimId);
  return events.map((e) => ({
    from: e.from_status,
    to: e.to_status,
    reason: e.reason,
    at: e.at.toISOString(),
  }));
}
