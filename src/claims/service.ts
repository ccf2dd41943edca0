// Operator use cases on claims: the allowed manual moves, listings and a claim's history.
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import { canMove } from '../domain/claims.ts';
import type { ClaimStatus } from '../domain/claims.ts';
import { formatAmount } from '../domain/amounts.ts';
import { claimAwaitsLink, claimNotFound, illegalClaimTransition } from '../error-factories.ts';
import { release } from '../budgets/reservations.ts';
import { transitionClaims } from './transitions.ts';

/** An operator's move of one claim: RESERVED -> REJECTED (releases the budget), FAILED -> REQUESTED. */
export async function moveClaim(
  db: Kysely<DB>,
  clock: Clock,
  claimId: string,
  to: 'REJECTED' | 'REQUESTED',
  reason: string,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const claim = await trx
      .selectFrom('claims as c')
      .innerJoin('budgets as b', 'b.id', 'c.budget_id')
      .select([
        'c.id',
        'c.status',
        'c.amount',
        'c.budget_id',
        'c.partner_id',
        'c.partner_uid',
        'c.account_id',
        'b.stripes',
      ])
      .where('c.id', '=', claimId)
      .forUpdate()
      .executeTakeFirst();
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
      await release(
        trx,
        claim.budget_id,
        BigInt(claim.amount),
        `${claim.partner_id}:${claim.partner_uid}`,
        claim.stripes,
      );
  });
}

export interface ClaimFilter {
  status?: ClaimStatus;
  partnerId?: string;
  partnerUid?: string;
  promotionId?: string;
  budgetId?: string;
  accountId?: string;
}

export async function listClaims(db: Kysely<DB>, filter: ClaimFilter, limit: number, offset: number) {
  let query = db
    .selectFrom('claims as c')
    .innerJoin('reward_assets as a', 'a.id', 'c.asset_id')
    // The mission a MISSION claim pays for, named (null for group, draw and streak claims).
    .leftJoin('missions as m', (join) =>
      join.onRef('m.id', '=', 'c.source_id').on('c.source', '=', 'MISSION'),
    )
    .select([
      'c.id',
      'c.status',
      'c.amount',
      'c.reason',
      'c.source',
      'c.source_id',
      'c.period_key',
      'c.partner_id',
      'c.partner_uid',
      'c.account_id',
      'c.promotion_id',
      'c.budget_id',
      'c.attempts',
      'c.created_at',
      'c.updated_at',
      'c.completed_before_link',
      'a.symbol',
      'a.decimals',
      'm.mission_key',
      'm.title as mission_title',
    ]);
  if (filter.status) query = query.where('c.status', '=', filter.status);
  if (filter.partnerId) query = query.where('c.partner_id', '=', filter.partnerId);
  if (filter.partnerUid) query = query.where('c.partner_uid', '=', filter.partnerUid);
  if (filter.promotionId) query = query.where('c.promotion_id', '=', filter.promotionId);
  if (filter.budgetId) query = query.where('c.budget_id', '=', filter.budgetId);
  if (filter.accountId) query = query.where('c.account_id', '=', filter.accountId);
  const rows = await query
    .orderBy('c.created_at', 'desc')
    .orderBy('c.id')
    .limit(limit)
    .offset(offset)
    .execute();
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
  const [claim] = await db.selectFrom('claims').select('id').where('id', '=', claimId).execute();
  if (!claim) throw claimNotFound(claimId);
  const events = await db
    .selectFrom('claim_events')
    .selectAll()
    .where('claim_id', '=', claimId)
    .orderBy('id')
    .execute();
  return events.map((e) => ({
    from: e.from_status,
    to: e.to_status,
    reason: e.reason,
    at: e.at.toISOString(),
  }));
}
