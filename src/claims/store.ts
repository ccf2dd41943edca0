// The claims capability's SQL for its operator use cases (service.ts), reward rules (rules.ts),
// streaks (streaks.ts), lucky-draw tickets (tickets.ts) and the expiry of RESERVED claims
// (expiry.ts); that of completions and deferred rewards is in completion-store.ts. Each function runs one statement and returns rows; the callers hold the rules, the
// views and the transactions.
import { sql } from 'kysely';
import type { Insertable, Kysely, Transaction } from 'kysely';
import type { DB, RewardRulesTable, StreakRewardsTable } from '../db/schema.ts';
import { prepared } from '../db/connection.ts';
import type { ClaimStatus } from '../domain/claims.ts';
import { newId } from '../domain/ids.ts';
import { lockPartnerByPartner, mappingsOfBatch, partnerIn } from '../db/citus.ts';

// --- Reward rules ---

/** The type of the promotion a mission group belongs to, if the group exists. */
export function selectGroupPromotionType(db: Kysely<DB>, groupId: string) {
  return db
    .selectFrom('mission_groups as g')
    .innerJoin('promotions as p', 'p.id', 'g.promotion_id')
    .select('p.type')
    .where('g.id', '=', groupId)
    .executeTakeFirst();
}

/** Deletes the reward rule of a mission (or, when `missionId` is null, of a mission group). */
export async function deleteRuleOf(
  trx: Transaction<DB>,
  missionId: string | null,
  groupId: string | null,
): Promise<void> {
  await trx
    .deleteFrom('reward_rules')
    .where(missionId ? 'mission_id' : 'mission_group_id', '=', (missionId ?? groupId) as string)
    .execute();
}

export function insertRule(trx: Transaction<DB>, values: Insertable<RewardRulesTable>) {
  return trx.insertInto('reward_rules').values(values).returningAll().executeTakeFirstOrThrow();
}

/** Deletes the reward rule of a mission or a mission group; answers its id, if there was one. */
export function deleteRuleReturning(db: Kysely<DB>, target: { missionId: string } | { groupId: string }) {
  return db
    .deleteFrom('reward_rules')
    .where(
      'missionId' in target ? 'mission_id' : 'mission_group_id',
      '=',
      'missionId' in target ? target.missionId : target.groupId,
    )
    .returning('id')
    .executeTakeFirst();
}

/** The promotion's type, if it exists. */
export function selectPromotionType(db: Kysely<DB>, promotionId: string) {
  return db.selectFrom('promotions').select('type').where('id', '=', promotionId).executeTakeFirst();
}

export async function deleteStreakRewards(trx: Transaction<DB>, promotionId: string): Promise<void> {
  await trx.deleteFrom('streak_rewards').where('promotion_id', '=', promotionId).execute();
}

export async function insertStreakRewards(
  trx: Transaction<DB>,
  rows: Array<Insertable<StreakRewardsTable>>,
): Promise<void> {
  await trx.insertInto('streak_rewards').values(rows).execute();
}

/** The promotion's streak rewards with their asset's decimals, shortest streak first. */
export function selectStreakRewards(db: Kysely<DB>, promotionId: string) {
  return db
    .selectFrom('streak_rewards as r')
    .innerJoin('budgets as b', 'b.id', 'r.budget_id')
    .innerJoin('reward_assets as a', 'a.id', 'b.asset_id')
    .select(['r.days', 'r.budget_id', 'r.amount', 'a.decimals'])
    .where('r.promotion_id', '=', promotionId)
    .orderBy('r.days')
    .execute();
}

// --- Streaks ---

export interface StreakKey {
  partner_id: string;
  partner_uid: string;
  promotion_id: string;
}

/** The user's streak in the promotion, locked FOR UPDATE, if there is one. */
export function lockStreak(trx: Transaction<DB>, key: StreakKey) {
  return trx
    .selectFrom('user_streaks')
    .select(['current', 'best', 'last_date'])
    .where('partner_id', '=', key.partner_id)
    .where('partner_uid', '=', key.partner_uid)
    .where('promotion_id', '=', key.promotion_id)
    .forUpdate()
    .executeTakeFirst();
}

/** Inserts or replaces the user's streak. */
export async function upsertStreak(
  trx: Transaction<DB>,
  key: StreakKey,
  streak: { current: number; best: number; last_date: string },
): Promise<void> {
  await trx
    .insertInto('user_streaks')
    .values({ ...key, ...streak })
    .onConflict((oc) => oc.columns(['partner_id', 'partner_uid', 'promotion_id']).doUpdateSet(streak))
    .execute();
}

/** The promotion's reward for a streak of `days`, with its budget, if there is one. */
export function selectStreakReward(trx: Transaction<DB>, promotionId: string, days: number) {
  return trx
    .selectFrom('streak_rewards as r')
    .innerJoin('budgets as b', 'b.id', 'r.budget_id')
    .select(['r.amount', 'b.id', 'b.asset_id', 'b.stripes'])
    .where('r.promotion_id', '=', promotionId)
    .where('r.days', '=', days)
    .executeTakeFirst();
}

// --- Tickets ---

/** A lucky-draw ticket earned by a completion. */
export interface TicketGrant {
  partnerId: string;
  partnerUid: string;
  promotionId: string | null;
  missionId: string;
  budgetId: string;
  periodKey: string;
  now: Date;
}

/**
 * One statement: the tickets of linked users are issued (one per user, mission and period, and one
 * per person: none when the account holds one through another partnerUid); those of users who
 * have not linked are deferred.
 */
export async function insertTickets(trx: Transaction<DB>, tickets: readonly TicketGrant[]): Promise<void> {
  await trx.executeQuery(ticketsStatement(trx, tickets));
}

/** insertTickets' statement, compiled. */
function ticketsStatement(db: Kysely<DB>, tickets: readonly TicketGrant[]) {
  const column = <T>(pick: (t: TicketGrant) => T) => tickets.map(pick);
  const query = sql`
    WITH input AS (
      SELECT * FROM unnest(${column(() => newId('tkt'))}::text[], ${column((t) => t.partnerId)}::text[], ${column((t) => t.partnerUid)}::text[],
                           ${column((t) => t.promotionId)}::text[], ${column((t) => t.missionId)}::text[], ${column((t) => t.budgetId)}::text[],
                           ${column((t) => t.periodKey)}::text[], ${column((t) => t.now.toISOString())}::timestamptz[])
             AS i(id, partner_id, partner_uid, promotion_id, mission_id, budget_id, period_key, at)
    ), has_one AS (
      -- One ticket per person: the account already holds this period's ticket through another
      -- partnerUid it was linked through before (docs/rewards.md). A mission belongs to one partner,
      -- so that ticket is on the same partner (and shard). Joins on keys, not EXISTS: Citus plans no
      -- correlated sub-query over a function's rows; an inner join, with the partners as constants,
      -- which Citus runs on their shards alone (an outer join read the whole table: docs/scaling.md
      -- "On Citus").
      SELECT DISTINCT i.id FROM input i
      JOIN ${mappingsOfBatch(tickets)} m ON m.partner_id = i.partner_id AND m.partner_uid = i.partner_uid
      JOIN tickets o ON o.partner_id = m.partner_id AND ${partnerIn(sql.ref('o.partner_id'), tickets)}
        AND o.account_id = m.account_id AND o.mission_id = i.mission_id AND o.period_key = i.period_key
        AND o.partner_uid <> i.partner_uid
    ), facts AS (
      SELECT i.*, m.account_id, m.account_id IS NOT NULL AS linked, h.id IS NOT NULL AS person_has_one
      FROM input i
      LEFT JOIN ${mappingsOfBatch(tickets)} m ON m.partner_id = i.partner_id AND m.partner_uid = i.partner_uid
      LEFT JOIN has_one h ON h.id = i.id
    ), issued AS (
      INSERT INTO tickets (id, partner_id, partner_uid, account_id, mission_id, budget_id, period_key, status, created_at)
      SELECT id, partner_id, partner_uid, account_id, mission_id, budget_id, period_key, 'RECEIVED', at FROM facts
      WHERE linked AND NOT person_has_one
      ORDER BY partner_id, partner_uid, mission_id, period_key
      ON CONFLICT (partner_id, partner_uid, mission_id, period_key) DO NOTHING
    )
    INSERT INTO deferred_rewards (id, kind, partner_id, partner_uid, promotion_id, source, source_id, period_key, budget_id, amount, completed_at)
    SELECT id, 'TICKET', partner_id, partner_uid, promotion_id, 'MISSION', mission_id, period_key, budget_id, NULL, at FROM facts WHERE NOT linked
    ORDER BY partner_id, partner_uid, mission_id, period_key
    ON CONFLICT DO NOTHING`;
  return prepared('tickets_grant', query.compile(db));
}

// --- Expiry ---

/**
 * Locks (SKIP LOCKED) up to 500 RESERVED claims created before `cutoff`, with their budget's
 * stripes, partner by partner (on Citus claims are distributed on partner_id and a row lock must
 * name one shard, docs/scaling.md "On Citus"; the partners are read first, without a lock).
 */
export async function lockExpiredReservations(trx: Transaction<DB>, cutoff: Date) {
  const limit = 500;
  const partners = await sql<{ partner_id: string }>`
    SELECT DISTINCT partner_id FROM (
      SELECT partner_id FROM claims WHERE status = 'RESERVED' AND created_at < ${cutoff} LIMIT ${limit}) d
    ORDER BY partner_id`.execute(trx);
  return lockPartnerByPartner(
    partners.rows.map((r) => r.partner_id),
    limit,
    (partnerId, left) =>
      trx
        .selectFrom('claims as c')
        .innerJoin('budgets as b', 'b.id', 'c.budget_id')
        .select(['c.id', 'c.amount', 'c.budget_id', 'c.partner_id', 'c.partner_uid', 'b.stripes'])
        .where('c.partner_id', '=', partnerId)
        .where('c.status', '=', 'RESERVED')
        .where('c.created_at', '<', cutoff)
        .limit(left)
        .forUpdate('c')
        .skipLocked()
        .execute(),
  );
}

// --- Operator use cases ---

/**
 * The claim with its budget's stripes, locked FOR UPDATE, if it exists. Its partner is read first
 * (without a lock): on Citus the lock must name the claim's shard.
 */
export async function lockClaimWithStripes(trx: Transaction<DB>, claimId: string) {
  const found = await trx
    .selectFrom('claims')
    .select('partner_id')
    .where('id', '=', claimId)
    .executeTakeFirst();
  if (!found) return undefined;
  return trx
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
    .where('c.partner_id', '=', found.partner_id)
    .forUpdate('c')
    .executeTakeFirst();
}

export interface ClaimFilter {
  status?: ClaimStatus;
  partnerId?: string;
  partnerUid?: string;
  promotionId?: string;
  budgetId?: string;
  accountId?: string;
  /** Keyset paging: only the claims listed after this claim (newest first, then by id). */
  afterId?: string;
}

/** A page of the claims that match the filter, newest first, with their asset and mission. */
export function selectClaims(db: Kysely<DB>, filter: ClaimFilter, limit: number, offset: number) {
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
  if (filter.afterId) {
    // Compared in SQL with the cursor row's own created_at: microseconds a JS Date would round off.
    const cursorAt = db.selectFrom('claims').select('created_at').where('id', '=', filter.afterId);
    const afterId = filter.afterId;
    query = query.where((eb) =>
      eb.or([
        eb('c.created_at', '<', cursorAt),
        eb.and([eb('c.created_at', '=', cursorAt), eb('c.id', '>', afterId)]),
      ]),
    );
  }
  return query.orderBy('c.created_at', 'desc').orderBy('c.id').limit(limit).offset(offset).execute();
}

/** The claim's id and partner (none or one row). */
export function selectClaimPartner(db: Kysely<DB>, claimId: string) {
  return db.selectFrom('claims').select(['id', 'partner_id']).where('id', '=', claimId).execute();
}

/** The claim's status changes, in order (named by its partner: on Citus they live on its shard). */
export function selectClaimEvents(db: Kysely<DB>, partnerId: string, claimId: string) {
  return db
    .selectFrom('claim_events')
    .selectAll()
    .where('partner_id', '=', partnerId)
    .where('claim_id', '=', claimId)
    .orderBy('id')
    .execute();
}
