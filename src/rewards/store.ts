// SQL of rewards shared by several use cases: claims with their history, the completion's look-up,
// streaks and tickets. Amounts cross this boundary as decimal strings of base units (numeric::text).
import { sql } from 'kysely';
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { ClaimStatus } from '../domain/claims.ts';

export type ClaimSource = 'MISSION' | 'GROUP' | 'STREAK' | 'DRAW';
export type RewardType = 'FIXED' | 'LUCKY_DRAW';

export interface ClaimEvent {
  from: ClaimStatus | null;
  to: ClaimStatus;
  reason: string | null;
}

export interface NewClaim {
  id: string;
  budgetId: string;
  assetId: string;
  partnerId: string;
  partnerUid: string;
  accountId: string | null;
  promotionId: string | null;
  source: ClaimSource;
  sourceId: string;
  periodKey: string;
  amount: bigint;
  status: ClaimStatus;
  reason: string | null;
  now: Date;
}

/**
 * Inserts a claim and its first history rows in one statement (one round trip while the stripe lock
 * is held). At most one claim per (partner user, source, source id, period): a second one is not
 * written and the answer is false.
 */
export async function insertClaimWithEvents(trx: Transaction<DB>, claim: NewClaim, events: ClaimEvent[]): Promise<boolean> {
  const at = claim.now.toISOString();
  const eventRows = sql.join(
    events.map((e, i) => sql`(${i}::int, ${e.from}::text, ${e.to}::text, ${e.reason}::text)`),
  );
  const result = await sql<{ claim_id: string }>`
    WITH c AS (
      INSERT INTO claims (id, budget_id, asset_id, partner_id, partner_uid, account_id, promotion_id, source, source_id,
                          period_key, amount, status, reason, next_attempt_at, created_at, updated_at)
      VALUES (${claim.id}, ${claim.budgetId}, ${claim.assetId}, ${claim.partnerId}, ${claim.partnerUid}, ${claim.accountId},
              ${claim.promotionId}, ${claim.source}, ${claim.sourceId}, ${claim.periodKey}, ${claim.amount.toString()}::numeric,
              ${claim.status}, ${claim.reason}, ${claim.status === 'REQUESTED' ? at : null}::timestamptz, ${at}::timestamptz, ${at}::timestamptz)
      ON CONFLICT (partner_id, partner_uid, source, source_id, period_key) DO NOTHING
      RETURNING id
    )
    INSERT INTO claim_events (claim_id, from_status, to_status, reason, at)
    SELECT c.id, e.from_status, e.to_status, e.reason, ${at}::timestamptz
    FROM c CROSS JOIN (VALUES ${eventRows}) AS e (n, from_status, to_status, reason)
    ORDER BY e.n
    RETURNING claim_id`.execute(trx);
  return result.rows.length > 0;
}

export async function recordClaimEvents(
  db: Kysely<DB>,
  claimIds: readonly string[],
  event: ClaimEvent,
  at: Date,
): Promise<void> {
  if (claimIds.length === 0) return;
  await db
    .insertInto('claim_events')
    .values(claimIds.map((claim_id) => ({ claim_id, from_status: event.from, to_status: event.to, reason: event.reason, at })))
    .execute();
}

export interface RuleWithBudget {
  type: RewardType;
  amount: string | null;
  budgetId: string;
  assetId: string;
  stripes: number;
}

export interface CompletionContext {
  promotionType: 'COMPOSITE' | 'DAILY_CHECK';
  timezone: string;
  /** The platform account of the partner user, when linked. */
  accountId: string | null;
  missionRule: RuleWithBudget | undefined;
  groupRule: RuleWithBudget | undefined;
}

/** Everything a completion needs to decide on its rewards, in one round trip. */
export async function completionContext(
  trx: Transaction<DB>,
  event: { partnerId: string; partnerUid: string; missionId: string; groupId: string; promotionId: string },
): Promise<CompletionContext | undefined> {
  const row = await trx
    .selectFrom('promotions as p')
    .leftJoin('user_mappings as um', (join) =>
      join.on('um.partner_id', '=', event.partnerId).on('um.partner_uid', '=', event.partnerUid),
    )
    .leftJoin('reward_rules as mr', (join) => join.on('mr.mission_id', '=', event.missionId))
    .leftJoin('budgets as mb', 'mb.id', 'mr.budget_id')
    .leftJoin('reward_rules as gr', (join) => join.on('gr.mission_group_id', '=', event.groupId))
    .leftJoin('budgets as gb', 'gb.id', 'gr.budget_id')
    .select([
      'p.type as promotionType',
      'p.timezone',
      'um.account_id as accountId',
      'mr.type as mType',
      sql<string | null>`mr.amount::text`.as('mAmount'),
      'mb.id as mBudgetId',
      'mb.asset_id as mAssetId',
      'mb.stripes as mStripes',
      'gr.type as gType',
      sql<string | null>`gr.amount::text`.as('gAmount'),
      'gb.id as gBudgetId',
      'gb.asset_id as gAssetId',
      'gb.stripes as gStripes',
    ])
    .where('p.id', '=', event.promotionId)
    .executeTakeFirst();
  if (!row) return undefined;
  const rule = (type: RewardType | null, amount: string | null, budgetId: string | null, assetId: string | null, stripes: number | null) =>
    type !== null && budgetId !== null && assetId !== null && stripes !== null ? { type, amount, budgetId, assetId, stripes } : undefined;
  return {
    promotionType: row.promotionType,
    timezone: row.timezone,
    accountId: row.accountId,
    missionRule: rule(row.mType, row.mAmount, row.mBudgetId, row.mAssetId, row.mStripes),
    groupRule: rule(row.gType, row.gAmount, row.gBudgetId, row.gAssetId, row.gStripes),
  };
}

/**
 * Counts a check-in of a DAILY_CHECK promotion on a local date: one guarded upsert. The streak grows
 * when the last check-in was the day before, restarts at 1 after a gap, and is left alone for a
 * second check-in the same day or a late report of an earlier day (then nothing is returned).
 * The same rules as domain/streaks.ts checkIn, here as one statement so concurrent reports of one
 * user serialise on the row.
 */
export async function advanceStreak(
  trx: Transaction<DB>,
  key: { partnerId: string; partnerUid: string; promotionId: string },
  date: string,
  now: Date,
): Promise<number | undefined> {
  const result = await sql<{ current: number }>`
    INSERT INTO check_streaks AS s (partner_id, partner_uid, promotion_id, current, best, last_check_date, updated_at)
    VALUES (${key.partnerId}, ${key.partnerUid}, ${key.promotionId}, 1, 1, ${date}::date, ${now.toISOString()}::timestamptz)
    ON CONFLICT (partner_id, partner_uid, promotion_id) DO UPDATE SET
      current = CASE WHEN s.last_check_date = excluded.last_check_date - 1 THEN s.current + 1 ELSE 1 END,
      best = greatest(s.best, CASE WHEN s.last_check_date = excluded.last_check_date - 1 THEN s.current + 1 ELSE 1 END),
      last_check_date = excluded.last_check_date,
      updated_at = excluded.updated_at
    WHERE s.last_check_date < excluded.last_check_date
    RETURNING current`.execute(trx);
  return result.rows[0]?.current;
}

export async function findStreakReward(trx: Transaction<DB>, promotionId: string, days: number) {
  return trx
    .selectFrom('streak_rewards as r')
    .innerJoin('budgets as b', 'b.id', 'r.budget_id')
    .select(['r.id', sql<string>`r.amount::text`.as('amount'), 'b.id as budgetId', 'b.asset_id as assetId', 'b.stripes'])
    .where('r.promotion_id', '=', promotionId)
    .where('r.days', '=', days)
    .executeTakeFirst();
}

/** Serialises the transactions of one partner user on one mission group until they commit. */
export async function lockUserGroup(trx: Transaction<DB>, partnerId: string, partnerUid: string, groupId: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`group:${partnerId}:${partnerUid}:${groupId}`}, 0))`.execute(trx);
}

export async function insertTicket(
  trx: Transaction<DB>,
  ticket: {
    id: string;
    partnerId: string;
    partnerUid: string;
    missionId: string | null;
    groupId: string | null;
    budgetId: string;
    periodKey: string;
    now: Date;
  },
): Promise<boolean> {
  const inserted = await trx
    .insertInto('tickets')
    .values({
      id: ticket.id,
      partner_id: ticket.partnerId,
      partner_uid: ticket.partnerUid,
      mission_id: ticket.missionId,
      mission_group_id: ticket.groupId,
      budget_id: ticket.budgetId,
      period_key: ticket.periodKey,
      status: 'RECEIVED',
      created_at: ticket.now,
    })
    .onConflict((oc) => oc.doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}
