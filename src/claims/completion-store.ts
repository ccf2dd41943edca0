// The SQL of a completion's handler (completion.ts: the catalog facts, the user-group lock, the
// group's count) and of deferred rewards (deferred-rewards.ts: their take, the claims of expired
// ones, the account of a user who has just linked). Each function runs one statement and returns
// rows; the callers hold the order and the transactions.
import { sql } from 'kysely';
import type { Kysely, RawBuilder, Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import { claimsCtes, grantRows } from './grant-store.ts';
import type { Grant, RefusalReason } from './grant-store.ts';

// --- Completions ---

/** The reward rule of a mission or a mission group, with its budget's asset and stripes, if any. */
export function selectRuleOf(db: Kysely<DB>, column: 'mission_id' | 'mission_group_id', id: string) {
  return db
    .selectFrom('reward_rules as r')
    .innerJoin('budgets as b', 'b.id', 'r.budget_id')
    .select(['r.type', 'r.amount', 'b.id as budget_id', 'b.asset_id', 'b.stripes'])
    .where(`r.${column}`, '=', id)
    .executeTakeFirst();
}

/** The promotion's type and time zone (it exists: the completion is of one of its missions). */
export function selectPromotionFacts(db: Kysely<DB>, promotionId: string) {
  return db
    .selectFrom('promotions')
    .select(['type', 'timezone'])
    .where('id', '=', promotionId)
    .executeTakeFirstOrThrow();
}

/** The missions of a mission group with their recurrence. */
export function selectGroupMembers(db: Kysely<DB>, groupId: string) {
  return db
    .selectFrom('missions')
    .select(['id', 'recurrence'])
    .where('mission_group_id', '=', groupId)
    .execute();
}

/** Takes the transaction-scoped advisory lock of a (partner user, mission group). */
export async function lockUserGroupKey(
  trx: Transaction<DB>,
  partnerId: string,
  partnerUid: string,
  groupId: string,
): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`group:${partnerId}:${partnerUid}:${groupId}`}, 0))`.execute(
    trx,
  );
}

/** How many of the given (mission, period) the partner user has completed. */
export function countCompletedPeriods(
  trx: Transaction<DB>,
  partnerId: string,
  partnerUid: string,
  periods: ReadonlyArray<{ id: string; period: string }>,
) {
  return trx
    .selectFrom('mission_progress')
    .select(sql<number>`count(*)::int`.as('n'))
    .where('partner_id', '=', partnerId)
    .where('partner_uid', '=', partnerUid)
    .where('completed', '=', true)
    .where((eb) =>
      eb.or(periods.map((p) => eb.and([eb('mission_id', '=', p.id), eb('period_key', '=', p.period)]))),
    )
    .executeTakeFirstOrThrow();
}

// --- Deferred rewards ---

/** A deferred reward taken (deleted) for granting, with its budget's facts. */
export interface DeferredRewardRow {
  id: string;
  kind: 'CLAIM' | 'TICKET';
  partner_id: string;
  partner_uid: string;
  promotion_id: string | null;
  source: 'MISSION' | 'GROUP' | 'DRAW' | 'STREAK';
  source_id: string;
  period_key: string;
  budget_id: string;
  amount: string | null;
  completed_at: Date;
  asset_id: string;
  stripes: number;
  /** When the user linked, if not now (the sweep comes after the link): the age of a completion is taken then. */
  linked_at?: Date;
}

/** Writes the grants as claims born REJECTED with the given reasons (nothing taken from a budget). */
export async function insertRefusedClaims(
  trx: Transaction<DB>,
  grants: readonly Grant[],
  ids: readonly string[],
  refused: ReadonlyArray<RefusalReason>,
): Promise<void> {
  const query = sql`
      WITH ${claimsCtes(grantRows(grants, ids, refused), sql`true`, grants)}
      SELECT id FROM claim`;
  await trx.executeQuery(query.compile(trx));
}

/** Deletes and returns the deferred rewards of one partner user (locking them), with their budget's facts. */
export async function deleteDeferredRewardsOf(
  trx: Transaction<DB>,
  partnerId: string,
  partnerUid: string,
): Promise<DeferredRewardRow[]> {
  const { rows } = await sql<DeferredRewardRow>`
    DELETE FROM deferred_rewards d USING budgets b
    WHERE d.partner_id = ${partnerId} AND d.partner_uid = ${partnerUid} AND b.id = d.budget_id
    RETURNING d.id, d.kind, d.partner_id, d.partner_uid, d.promotion_id, d.source, d.source_id, d.period_key, d.budget_id,
              d.amount::text AS amount, d.completed_at, b.asset_id, b.stripes`.execute(trx);
  return rows;
}

/** Gives the account to the partner user's claims that have none, but the RESERVED ones. */
export async function setAccountOfUnlinkedClaims(
  trx: Transaction<DB>,
  partnerId: string,
  partnerUid: string,
  accountId: string,
  now: Date,
): Promise<void> {
  await trx
    .updateTable('claims')
    .set({ account_id: accountId, updated_at: now })
    .where('partner_id', '=', partnerId)
    .where('partner_uid', '=', partnerUid)
    .where('account_id', 'is', null)
    .where('status', '!=', 'RESERVED')
    .execute();
}

/** The condition on the claim row `c`: it is the partner user's. */
export function claimOfPartnerUser(partnerId: string, partnerUid: string): RawBuilder<boolean> {
  return sql<boolean>`c.partner_id = ${partnerId} AND c.partner_uid = ${partnerUid}`;
}
