// Claims after their creation: an operator's moves (reject, retry), the worker's sweeps (request the
// claims of users who just linked, expire old reservations), and the views with their history.
// Every move follows domain/claims.ts and writes a claim_events row.
import { sql } from 'kysely';
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import { canMove } from '../domain/claims.ts';
import type { ClaimStatus } from '../domain/claims.ts';
import { formatAmount } from '../domain/amounts.ts';
import { appError } from '../errors.ts';
import { homeStripe, releaseToBudget } from './reservation.ts';
import { recordClaimEvents } from './store.ts';
import type { ClaimSource } from './store.ts';

export const RESERVATION_EXPIRED = 'RESERVATION_EXPIRED';

/** An operator's move of one claim: RESERVED -> REJECTED (releases the budget), FAILED -> REQUESTED. */
export async function moveClaim(
  db: Kysely<DB>,
  clock: Clock,
  claimId: string,
  to: 'REJECTED' | 'REQUESTED',
  reason: string,
): Promise<ClaimView> {
  await db.transaction().execute(async (trx) => {
    const claim = await trx
      .selectFrom('claims as c')
      .select(['c.id', 'c.status', sql<string>`c.amount::text`.as('amount'), 'c.budget_id', 'c.partner_id', 'c.partner_uid', 'c.account_id'])
      .where('c.id', '=', claimId)
      .forUpdate()
      .executeTakeFirst();
    if (!claim) throw appError('NOT_FOUND_CLAIM', `no claim '${claimId}'`);
    if (!canMove(claim.status, to)) {
      throw appError('ILLEGAL_CLAIM_TRANSITION', `a ${claim.status} claim cannot become ${to}`, { status: claim.status });
    }
    if (to === 'REQUESTED' && claim.account_id === null) {
      throw appError('ILLEGAL_CLAIM_TRANSITION', 'the user is not linked yet; the claim is requested when they link', { status: claim.status });
    }
    const now = clock.now();
    await trx
      .updateTable('claims')
      .set({ status: to, reason, updated_at: now, ...(to === 'REQUESTED' && { next_attempt_at: now, attempts: 0 }) })
      .where('id', '=', claimId)
      .execute();
    if (to === 'REJECTED') await releaseClaimBudget(trx, claim);
    await recordClaimEvents(trx, [claimId], { from: claim.status, to, reason }, now);
  });
  return getClaim(db, claimId);
}

async function releaseClaimBudget(
  trx: Transaction<DB>,
  claim: { budget_id: string; amount: string; partner_id: string; partner_uid: string },
): Promise<void> {
  const budget = await trx.selectFrom('budgets').select(['id', 'stripes']).where('id', '=', claim.budget_id).executeTakeFirstOrThrow();
  await releaseToBudget(trx, budget, BigInt(claim.amount), `${claim.partner_id}:${claim.partner_uid}`);
}

/**
 * Requests the RESERVED claims of users who are linked by now. The connect transaction does this
 * itself; this sweep catches a claim whose achieve transaction committed just after the link (it
 * could not see the mapping, and connect could not see the claim). Looks at recent links only.
 */
export async function requestClaimsOfLinkedUsers(db: Kysely<DB>, clock: Clock, options: { sinceMs: number; limit: number }): Promise<number> {
  const now = clock.now();
  const since = new Date(now.getTime() - options.sinceMs);
  return db.transaction().execute(async (trx) => {
    const due = await trx
      .selectFrom('claims as c')
      .innerJoin('user_mappings as m', (join) => join.onRef('m.partner_id', '=', 'c.partner_id').onRef('m.partner_uid', '=', 'c.partner_uid'))
      .select(['c.id', 'm.account_id'])
      .where('c.status', '=', 'RESERVED')
      .where('m.created_at', '>=', since)
      .limit(options.limit)
      .forUpdate('c')
      .skipLocked()
      .execute();
    for (const claim of due) {
      await trx
        .updateTable('claims')
        .set({ status: 'REQUESTED', account_id: claim.account_id, next_attempt_at: now, updated_at: now })
        .where('id', '=', claim.id)
        .execute();
    }
    await recordClaimEvents(trx, due.map((c) => c.id), { from: 'RESERVED', to: 'REQUESTED', reason: 'user linked' }, now);
    return due.length;
  });
}

/**
 * RESERVED -> REJECTED by expiry: a claim whose user has not linked within the reservation time
 * gives its amount back to the budget. Claims of users linked meanwhile are left to the sweep above.
 */
export async function expireReservations(db: Kysely<DB>, clock: Clock, options: { ttlSeconds: number; limit: number }): Promise<number> {
  if (options.ttlSeconds <= 0) return 0;
  const now = clock.now();
  const cutoff = new Date(now.getTime() - options.ttlSeconds * 1000);
  return db.transaction().execute(async (trx) => {
    const expired = await trx
      .selectFrom('claims as c')
      .select(['c.id', sql<string>`c.amount::text`.as('amount'), 'c.budget_id', 'c.partner_id', 'c.partner_uid'])
      .where('c.status', '=', 'RESERVED')
      .where('c.created_at', '<=', cutoff)
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('user_mappings as m').select('m.account_id').whereRef('m.partner_id', '=', 'c.partner_id').whereRef('m.partner_uid', '=', 'c.partner_uid'))),
      )
      .orderBy('c.created_at')
      .limit(options.limit)
      .forUpdate()
      .skipLocked()
      .execute();
    if (expired.length === 0) return 0;
    await trx
      .updateTable('claims')
      .set({ status: 'REJECTED', reason: RESERVATION_EXPIRED, updated_at: now })
      .where('id', 'in', expired.map((c) => c.id))
      .execute();
    // Stripes are written in (budget, stripe) order, the one order in which anything takes several.
    const budgets = new Map<string, { id: string; stripes: number }>();
    for (const row of await trx.selectFrom('budgets').select(['id', 'stripes']).where('id', 'in', [...new Set(expired.map((c) => c.budget_id))]).execute()) {
      budgets.set(row.id, row);
    }
    const releases = expired
      .map((c) => {
        const budget = budgets.get(c.budget_id) as { id: string; stripes: number };
        return { claim: c, budget, stripe: homeStripe(`${c.partner_id}:${c.partner_uid}`, budget.stripes) };
      })
      .sort((a, b) => (a.budget.id < b.budget.id ? -1 : a.budget.id > b.budget.id ? 1 : a.stripe - b.stripe));
    for (const { claim, budget } of releases) {
      await releaseToBudget(trx, budget, BigInt(claim.amount), `${claim.partner_id}:${claim.partner_uid}`);
    }
    await recordClaimEvents(trx, expired.map((c) => c.id), { from: 'RESERVED', to: 'REJECTED', reason: RESERVATION_EXPIRED }, now);
    return expired.length;
  });
}

// --- Views ---

export interface ClaimView {
  id: string;
  status: ClaimStatus;
  amount: string;
  assetId: string;
  assetSymbol: string;
  decimals: number;
  reason: string | null;
  source: ClaimSource;
  sourceId: string;
  periodKey: string;
  partnerId: string;
  partnerUid: string;
  accountId: string | null;
  promotionId: string | null;
  budgetId: string;
  attempts: number;
  nextAttemptAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface ClaimFilter {
  status?: ClaimStatus;
  partnerId?: string;
  partnerUid?: string;
  promotionId?: string;
  budgetId?: string;
  accountId?: string;
  source?: ClaimSource;
}

function claimQuery(db: Kysely<DB>) {
  return db
    .selectFrom('claims as c')
    .innerJoin('reward_assets as a', 'a.id', 'c.asset_id')
    .select([
      'c.id',
      'c.status',
      sql<string>`c.amount::text`.as('amount'),
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
      'c.next_attempt_at',
      'c.created_at',
      'c.updated_at',
      'a.id as asset_id',
      'a.symbol',
      'a.decimals',
    ]);
}

function claimView(r: Awaited<ReturnType<ReturnType<typeof claimQuery>['executeTakeFirstOrThrow']>>): ClaimView {
  const decimals = r.decimals ?? 0;
  return {
    id: r.id,
    status: r.status,
    amount: formatAmount(r.amount, decimals),
    assetId: r.asset_id,
    assetSymbol: r.symbol,
    decimals,
    reason: r.reason,
    source: r.source,
    sourceId: r.source_id,
    periodKey: r.period_key,
    partnerId: r.partner_id,
    partnerUid: r.partner_uid,
    accountId: r.account_id,
    promotionId: r.promotion_id,
    budgetId: r.budget_id,
    attempts: r.attempts,
    nextAttemptAt: r.next_attempt_at?.toISOString() ?? null,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}

export async function listClaims(db: Kysely<DB>, filter: ClaimFilter, page: { limit: number; offset: number }): Promise<ClaimView[]> {
  let query = claimQuery(db);
  if (filter.status !== undefined) query = query.where('c.status', '=', filter.status);
  if (filter.partnerId !== undefined) query = query.where('c.partner_id', '=', filter.partnerId);
  if (filter.partnerUid !== undefined) query = query.where('c.partner_uid', '=', filter.partnerUid);
  if (filter.promotionId !== undefined) query = query.where('c.promotion_id', '=', filter.promotionId);
  if (filter.budgetId !== undefined) query = query.where('c.budget_id', '=', filter.budgetId);
  if (filter.source !== undefined) query = query.where('c.source', '=', filter.source);
  if (filter.accountId !== undefined) {
    // A user's claims are those of every partner user linked to the account (also the ones made before the link).
    const accountId = filter.accountId;
    query = query.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('user_mappings as u')
          .select('u.account_id')
          .whereRef('u.partner_id', '=', 'c.partner_id')
          .whereRef('u.partner_uid', '=', 'c.partner_uid')
          .where('u.account_id', '=', accountId),
      ),
    );
  }
  const rows = await query.orderBy('c.created_at', 'desc').orderBy('c.id').limit(page.limit).offset(page.offset).execute();
  return rows.map(claimView);
}

export async function getClaim(db: Kysely<DB>, claimId: string): Promise<ClaimView> {
  const row = await claimQuery(db).where('c.id', '=', claimId).executeTakeFirst();
  if (!row) throw appError('NOT_FOUND_CLAIM', `no claim '${claimId}'`);
  return claimView(row);
}

export async function claimHistory(db: Kysely<DB>, claimId: string) {
  await getClaim(db, claimId);
  const events = await db.selectFrom('claim_events').selectAll().where('claim_id', '=', claimId).orderBy('id').execute();
  return events.map((e) => ({ from: e.from_status as ClaimStatus | null, to: e.to_status as ClaimStatus, reason: e.reason, at: e.at.toISOString() }));
}
