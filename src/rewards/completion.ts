// What a completion earns, decided inside the achieve transaction (once per newly completed period):
// the mission's reward, the group's when this completion finishes the group, and in DAILY_CHECK
// promotions the user's streak and its rewards. Also the claim grant shared with draws, and the
// release of waiting claims when a partner user links.
import type { Transaction } from 'kysely';
import type { DB, RecurrenceType } from '../db/schema.ts';
import type { ClaimStatus } from '../domain/claims.ts';
import { newId } from '../domain/ids.ts';
import { periodKeyFor } from '../domain/periods.ts';
import type { CompletionEvent } from '../progress/service.ts';
import { releaseToBudget, reserveFromBudget } from './reservation.ts';
import * as store from './store.ts';
import type { ClaimEvent, ClaimSource, RuleWithBudget } from './store.ts';

export const BUDGET_EXHAUSTED = 'BUDGET_EXHAUSTED';

export interface Grant {
  budget: { id: string; assetId: string; stripes: number };
  amount: bigint;
  partnerId: string;
  partnerUid: string;
  /** The user's platform account when linked, null when not; undefined: look it up. */
  accountId: string | null | undefined;
  promotionId: string | null;
  source: ClaimSource;
  sourceId: string;
  periodKey: string;
  now: Date;
}

/**
 * Creates the claim of one (partner user, source, period) at most once and reserves its amount from
 * the budget. A linked user's claim is REQUESTED at once; an unlinked user's waits in RESERVED; a
 * budget that cannot cover it gives a REJECTED claim with reason BUDGET_EXHAUSTED.
 */
export async function grantClaim(trx: Transaction<DB>, grant: Grant): Promise<{ id: string; status: ClaimStatus } | undefined> {
  const accountId =
    grant.accountId !== undefined
      ? grant.accountId
      : ((
          await trx
            .selectFrom('user_mappings')
            .select('account_id')
            .where('partner_id', '=', grant.partnerId)
            .where('partner_uid', '=', grant.partnerUid)
            .executeTakeFirst()
        )?.account_id ?? null);
  const userKey = `${grant.partnerId}:${grant.partnerUid}`;
  const reserved = await reserveFromBudget(trx, grant.budget, grant.amount, userKey);
  const status: ClaimStatus = !reserved ? 'REJECTED' : accountId !== null ? 'REQUESTED' : 'RESERVED';
  const events: ClaimEvent[] = !reserved
    ? [{ from: null, to: 'REJECTED', reason: BUDGET_EXHAUSTED }]
    : status === 'REQUESTED'
      ? [
          { from: null, to: 'RESERVED', reason: null },
          { from: 'RESERVED', to: 'REQUESTED', reason: 'user is linked' },
        ]
      : [{ from: null, to: 'RESERVED', reason: 'waiting for the user to link' }];
  const id = newId('clm');
  const inserted = await store.insertClaimWithEvents(
    trx,
    {
      id,
      budgetId: grant.budget.id,
      assetId: grant.budget.assetId,
      partnerId: grant.partnerId,
      partnerUid: grant.partnerUid,
      accountId,
      promotionId: grant.promotionId,
      source: grant.source,
      sourceId: grant.sourceId,
      periodKey: grant.periodKey,
      amount: grant.amount,
      status,
      reason: reserved ? null : BUDGET_EXHAUSTED,
      now: grant.now,
    },
    events,
  );
  if (!inserted) {
    // Already granted for this period: give the reservation back.
    if (reserved) await releaseToBudget(trx, grant.budget, grant.amount, userKey);
    return undefined;
  }
  return { id, status };
}

const RECURRENCE_SPAN: Record<RecurrenceType, number> = { DAILY: 1, WEEKLY: 2, MONTHLY: 3, ONE_TIME: 4 };

async function payRule(
  trx: Transaction<DB>,
  rule: RuleWithBudget,
  event: CompletionEvent,
  accountId: string | null,
  source: 'MISSION' | 'GROUP',
  periodKey: string,
): Promise<void> {
  const sourceId = source === 'MISSION' ? event.missionId : event.groupId;
  if (rule.type === 'FIXED' && rule.amount !== null) {
    await grantClaim(trx, {
      budget: { id: rule.budgetId, assetId: rule.assetId, stripes: rule.stripes },
      amount: BigInt(rule.amount),
      partnerId: event.partnerId,
      partnerUid: event.partnerUid,
      accountId,
      promotionId: event.promotionId,
      source,
      sourceId,
      periodKey,
      now: event.completedAt,
    });
  } else if (rule.type === 'LUCKY_DRAW') {
    await store.insertTicket(trx, {
      id: newId('tkt'),
      partnerId: event.partnerId,
      partnerUid: event.partnerUid,
      missionId: source === 'MISSION' ? event.missionId : null,
      groupId: source === 'GROUP' ? event.groupId : null,
      budgetId: rule.budgetId,
      periodKey,
      now: event.completedAt,
    });
  }
}

/**
 * Finishing the group: every mission of the group is completed in its own current period. The
 * group's period is that of its member with the longest recurrence (ONE_TIME > MONTHLY > WEEKLY >
 * DAILY): a group with a ONE_TIME mission pays once; an all-DAILY group once a day. Two missions of
 * the group completed at once by the same user would each miss the other's uncommitted record, so
 * the check runs under a lock per (user, group), taken only when the group has a reward.
 */
async function groupPeriodIfFinished(trx: Transaction<DB>, event: CompletionEvent, timezone: string): Promise<string | undefined> {
  await store.lockUserGroup(trx, event.partnerId, event.partnerUid, event.groupId);
  const members = await trx.selectFrom('missions').select(['id', 'recurrence']).where('mission_group_id', '=', event.groupId).execute();
  if (members.length === 0) return undefined;
  const periods = members.map((m) => ({ id: m.id, recurrence: m.recurrence, period: periodKeyFor(m.recurrence, event.completedAt, timezone) }));
  const done = await trx
    .selectFrom('mission_progress')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('partner_id', '=', event.partnerId)
    .where('partner_uid', '=', event.partnerUid)
    .where('completed', '=', true)
    .where((eb) => eb.or(periods.map((p) => eb.and([eb('mission_id', '=', p.id), eb('period_key', '=', p.period)]))))
    .executeTakeFirstOrThrow();
  if (Number(done.n) < members.length) return undefined;
  return periods.reduce((a, b) => (RECURRENCE_SPAN[b.recurrence] > RECURRENCE_SPAN[a.recurrence] ? b : a)).period;
}

/** A check-in of a DAILY_CHECK promotion: advance the streak, and pay a streak reward it reaches. */
async function checkIn(trx: Transaction<DB>, event: CompletionEvent, timezone: string, accountId: string | null): Promise<void> {
  const day = periodKeyFor('DAILY', event.completedAt, timezone);
  const current = await store.advanceStreak(trx, event, day, event.completedAt);
  if (current === undefined) return;
  const reward = await store.findStreakReward(trx, event.promotionId, current);
  if (!reward) return;
  await grantClaim(trx, {
    budget: { id: reward.budgetId, assetId: reward.assetId, stripes: reward.stripes },
    amount: BigInt(reward.amount),
    partnerId: event.partnerId,
    partnerUid: event.partnerUid,
    accountId,
    promotionId: event.promotionId,
    source: 'STREAK',
    sourceId: reward.id,
    // The day the streak was reached: reaching it again after a break pays again.
    periodKey: day,
    now: event.completedAt,
  });
}

/**
 * The CompletionHandler of achieve. Runs in its transaction with its `trx` only, once per newly
 * completed (user, mission, period); whatever it writes commits or rolls back with the progress.
 */
export async function onMissionCompleted(trx: Transaction<DB>, event: CompletionEvent): Promise<void> {
  const context = await store.completionContext(trx, event);
  if (!context) return;
  if (context.missionRule) await payRule(trx, context.missionRule, event, context.accountId, 'MISSION', event.periodKey);
  if (context.groupRule) {
    const period = await groupPeriodIfFinished(trx, event, context.timezone);
    if (period !== undefined) await payRule(trx, context.groupRule, event, context.accountId, 'GROUP', period);
  }
  if (context.promotionType === 'DAILY_CHECK') await checkIn(trx, event, context.timezone, context.accountId);
}

/**
 * Called inside the connect transaction when a partner user links to a platform account: the
 * user's claims get the account, and those waiting in RESERVED are REQUESTED for payout. (A claim
 * whose achieve transaction commits just after the link is picked up by the worker's sweep.)
 */
export async function onUserLinked(
  trx: Transaction<DB>,
  e: { partnerId: string; partnerUid: string; accountId: string },
  now: Date = new Date(),
): Promise<void> {
  await trx
    .updateTable('claims')
    .set({ account_id: e.accountId, updated_at: now })
    .where('partner_id', '=', e.partnerId)
    .where('partner_uid', '=', e.partnerUid)
    .where('account_id', 'is', null)
    .where('status', '!=', 'RESERVED')
    .execute();
  const moved = await trx
    .updateTable('claims')
    .set({ account_id: e.accountId, status: 'REQUESTED', next_attempt_at: now, updated_at: now })
    .where('partner_id', '=', e.partnerId)
    .where('partner_uid', '=', e.partnerUid)
    .where('status', '=', 'RESERVED')
    .returning('id')
    .execute();
  await store.recordClaimEvents(trx, moved.map((m) => m.id), { from: 'RESERVED', to: 'REQUESTED', reason: 'user linked' }, now);
}
