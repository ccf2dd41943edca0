// The completion handler of achieve: inside its transaction, each newly completed period pays the
// mission's reward, a DAILY_CHECK check-in's streak reward, and the group's reward when the group is
// complete; then every grant of the batch is granted at once (grants.ts).
import type { Kysely, Transaction } from 'kysely';
import type { DB, RecurrenceType as Recurrence } from '../db/schema.ts';
import { longestPeriod, periodKeyFor } from '../domain/periods.ts';
import { sortedBy } from '../domain/lock-order.ts';
import type { CompletionEvent, CompletionHandler } from '../progress/service.ts';
import { grantClaims } from './grants.ts';
import type { Grant } from './grants.ts';
import { grantTickets } from './tickets.ts';
import type { TicketGrant } from './tickets.ts';
import { recordCheckIn } from './streaks.ts';
import {
  countCompletedPeriods,
  lockUserGroupKey,
  selectGroupMembers,
  selectPromotionFacts,
  selectRuleOf,
} from './completion-store.ts';

interface RuleRow {
  type: 'FIXED' | 'LUCKY_DRAW';
  amount: string | null;
  budget_id: string;
  asset_id: string;
  stripes: number;
}

/** Catalog facts a completion needs: the rules, the promotion, the group's members. */
export interface CompletionContext {
  promotionType: 'COMPOSITE' | 'DAILY_CHECK';
  timezone: string;
  members: Array<{ id: string; recurrence: Recurrence }>;
  missionRule: RuleRow | undefined;
  groupRule: RuleRow | undefined;
}

export async function loadCompletionContext(
  db: Kysely<DB>,
  event: Pick<CompletionEvent, 'missionId' | 'groupId' | 'promotionId'>,
): Promise<CompletionContext> {
  const rule = (column: 'mission_id' | 'mission_group_id', id: string) => selectRuleOf(db, column, id);
  const promotion = await selectPromotionFacts(db, event.promotionId);
  const members = await selectGroupMembers(db, event.groupId);
  return {
    promotionType: promotion.type,
    timezone: promotion.timezone,
    members: members.map((m) => ({ id: m.id, recurrence: m.recurrence as Recurrence })),
    missionRule: await rule('mission_id', event.missionId),
    groupRule: await rule('mission_group_id', event.groupId),
  };
}

/**
 * What a rule pays for one completion: a FIXED rule a grant, a LUCKY_DRAW rule on a mission a
 * ticket; both are returned, to be granted with the rest of the batch.
 */
function applyRule(
  rule: RuleRow,
  event: CompletionEvent,
  source: 'MISSION' | 'GROUP',
  sourceId: string,
  periodKey: string,
): Grant | TicketGrant | undefined {
  if (rule.type === 'FIXED' && rule.amount !== null) {
    return {
      budget: { id: rule.budget_id, asset_id: rule.asset_id, stripes: rule.stripes },
      amount: BigInt(rule.amount),
      partnerId: event.partnerId,
      partnerUid: event.partnerUid,
      promotionId: event.promotionId,
      source,
      sourceId,
      periodKey,
      now: event.completedAt,
      traceContext: event.traceContext,
    };
  }
  if (rule.type === 'LUCKY_DRAW' && source === 'MISSION') {
    return {
      partnerId: event.partnerId,
      partnerUid: event.partnerUid,
      promotionId: event.promotionId,
      missionId: sourceId,
      budgetId: rule.budget_id,
      periodKey,
      now: event.completedAt,
    };
  }
  return undefined;
}

/** Holds a transaction-scoped lock per (partner user, mission group) until commit or rollback. */
export async function lockUserGroup(
  trx: Transaction<DB>,
  partnerId: string,
  partnerUid: string,
  groupId: string,
): Promise<void> {
  await lockUserGroupKey(trx, partnerId, partnerUid, groupId);
}

/**
 * The CompletionHandler of achieve: runs in its transaction with the batch's newly completed
 * periods and pays, for each, the mission's reward, a DAILY_CHECK check-in, and the group's reward
 * when this completion finishes the group; then every FIXED reward of the batch is reserved and
 * claimed at once (grantClaims). A group's period is that of its member with the longest
 * recurrence (a group with a ONE_TIME mission pays once; an all-DAILY group pays daily).
 * `context` gives the catalog facts (cached by the server).
 *
 * Locks are taken in one order by every transaction, whatever its batch holds: the progress
 * records (key order, by the upsert), then the streaks (key order), then the user-group locks (key
 * order), then the budget stripes (budget order); so two batches never wait on each other in a cycle.
 */
/** Where a completion's catalog facts come from (the server's cache; loadCompletionContext). */
export type CompletionContextOf = (
  db: Kysely<DB>,
  event: Pick<CompletionEvent, 'missionId' | 'groupId' | 'promotionId'>,
) => Promise<CompletionContext>;

export function completionHandler(context: CompletionContextOf): CompletionHandler {
  return async (trx, events) => {
    const grants: Grant[] = [];
    const tickets: TicketGrant[] = [];
    const add = (grant: Grant | TicketGrant | undefined) => {
      if (grant && 'amount' in grant) grants.push(grant);
      else if (grant) tickets.push(grant);
    };
    const facts: Array<{ event: CompletionEvent; context: CompletionContext }> = [];
    for (const event of events) facts.push({ event, context: await context(trx, event) });

    for (const { event, context: c } of facts) {
      if (c.missionRule) add(applyRule(c.missionRule, event, 'MISSION', event.missionId, event.periodKey));
    }
    const checkIns = facts.filter(
      ({ event, context: c }) =>
        c.promotionType === 'DAILY_CHECK' &&
        c.members.find((m) => m.id === event.missionId)?.recurrence === 'DAILY',
    );
    for (const { event } of sortedBy(
      checkIns,
      ({ event: e }) => `${e.partnerId}\u0000${e.partnerUid}\u0000${e.promotionId}`,
    )) {
      add(await recordCheckIn(trx, event));
    }
    // Two missions of a group completed at once by one user in two transactions would each miss
    // the other's uncommitted record and neither would pay the group: serialise them per (user,
    // group). The count below then reads, in a new snapshot, what the other committed.
    const grouped = facts.filter(({ context: c }) => c.groupRule !== undefined);
    const groupKey = (e: CompletionEvent) => `${e.partnerId}\u0000${e.partnerUid}\u0000${e.groupId}`;
    const locked = new Set<string>();
    for (const { event } of sortedBy(grouped, ({ event: e }) => groupKey(e))) {
      if (locked.has(groupKey(event))) continue;
      locked.add(groupKey(event));
      await lockUserGroup(trx, event.partnerId, event.partnerUid, event.groupId);
    }
    for (const { event, context: c } of grouped) {
      const periods = c.members.map((m) => ({
        id: m.id,
        recurrence: m.recurrence,
        period: periodKeyFor(m.recurrence, event.completedAt, c.timezone),
      }));
      const done = await countCompletedPeriods(trx, event.partnerId, event.partnerUid, periods);
      if (done.n < c.members.length) continue;
      add(applyRule(c.groupRule as RuleRow, event, 'GROUP', event.groupId, longestPeriod(periods).period));
    }
    await grantTickets(trx, tickets);
    await grantClaims(trx, grants);
  };
}

/** The handler without a cache: every completion reads the catalog facts in its transaction. */
export const onMissionCompleted = completionHandler((trx, event) => loadCompletionContext(trx, event));
