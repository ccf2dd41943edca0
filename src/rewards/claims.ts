// Reward rules, the completion handler (reserve and claim inside the achieve transaction), claim
// transitions with their history, and release of waiting claims when a user links.
import { sql } from 'kysely';
import type { Kysely, RawBuilder, Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import { canMove } from '../domain/claims.ts';
import type { ClaimStatus } from '../domain/claims.ts';
import { formatAmount } from '../domain/amounts.ts';
import { periodKeyFor } from '../domain/periods.ts';
import type { RecurrenceType as Recurrence } from '../db/schema.ts';
import { newId } from '../domain/ids.ts';
import { checkIn } from '../domain/streaks.ts';
import { appError } from '../errors.ts';
import type { CompletionEvent, CompletionHandler } from '../progress/service.ts';
import type { UserLinkedHandler } from '../linking/service.ts';
import { amountOf, decimalsOf, findBudget, homeStripe, release, reserveMany, takeFromOneFreeStripe } from './budgets.ts';
import { prepared } from '../db/connection.ts';
import type { BudgetType } from './budgets.ts';

// --- Rules ---

export interface RuleView {
  id: string;
  type: BudgetType;
  budgetId: string;
  amount: string | null;
}

export async function setRule(
  db: Kysely<DB>,
  clock: Clock,
  target: { missionId: string } | { groupId: string },
  input: { type: BudgetType; budgetId: string; amount?: string },
): Promise<RuleView> {
  const budget = await findBudget(db, input.budgetId);
  if (budget.type !== input.type) {
    throw appError('BUDGET_TYPE_MISMATCH', `a ${input.type} reward needs a ${input.type} budget; budget '${budget.id}' is ${budget.type}`);
  }
  const decimals = await decimalsOf(db, budget.asset_id);
  let amount: bigint | null = null;
  if (input.type === 'FIXED') {
    if (input.amount === undefined) throw appError('INVALID_AMOUNT', 'amount: a FIXED reward needs an amount', { field: 'amount' });
    amount = amountOf(input.amount, decimals, 'amount');
  } else if (input.amount !== undefined) {
    throw appError('INVALID_AMOUNT', 'amount: a LUCKY_DRAW reward has no amount (the draw sets the prize)', { field: 'amount' });
  }
  const missionId = 'missionId' in target ? target.missionId : null;
  const groupId = 'groupId' in target ? target.groupId : null;
  if (groupId !== null) {
    const promotion = await db.selectFrom('mission_groups as g').innerJoin('promotions as p', 'p.id', 'g.promotion_id').select('p.type').where('g.id', '=', groupId).executeTakeFirst();
    if (promotion?.type !== 'COMPOSITE') throw appError('VALIDATION_FAILED', 'group rewards belong to COMPOSITE promotions', { field: 'groupId' });
  }
  const row = await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('reward_rules').where(missionId ? 'mission_id' : 'mission_group_id', '=', (missionId ?? groupId) as string).execute();
    return trx
      .insertInto('reward_rules')
      .values({ id: newId('rwd'), mission_id: missionId, mission_group_id: groupId, type: input.type, budget_id: budget.id, amount, created_at: clock.now() })
      .returningAll()
      .executeTakeFirstOrThrow();
  });
  return { id: row.id, type: row.type, budgetId: row.budget_id, amount: row.amount === null ? null : formatAmount(row.amount, decimals) };
}

export async function removeRule(db: Kysely<DB>, target: { missionId: string } | { groupId: string }): Promise<void> {
  const removed = await db
    .deleteFrom('reward_rules')
    .where('missionId' in target ? 'mission_id' : 'mission_group_id', '=', 'missionId' in target ? target.missionId : target.groupId)
    .returning('id')
    .executeTakeFirst();
  if (!removed) throw appError('NOT_FOUND_REWARD_RULE', 'no reward is set there');
}

// --- Claims ---

async function recordEvent(trx: Transaction<DB>, claimIds: string[], from: ClaimStatus | null, to: ClaimStatus, reason: string | null, at: Date) {
  if (claimIds.length === 0) return;
  await trx.insertInto('claim_events').values(claimIds.map((claim_id) => ({ claim_id, from_status: from, to_status: to, reason, at }))).execute();
}

export interface Grant {
  budget: { id: string; asset_id: string; stripes: number };
  amount: bigint;
  partnerId: string;
  partnerUid: string;
  promotionId: string | null;
  source: 'MISSION' | 'GROUP' | 'DRAW' | 'STREAK';
  sourceId: string;
  periodKey: string;
  now: Date;
}

/**
 * Creates the claims of many grants, each (user, source, period) at most once, and reserves their
 * amounts, budget by budget in id order (so that concurrent granters never wait on each other in
 * a cycle). A linked user's claim is REQUESTED at once; an unlinked user's waits in RESERVED; no
 * budget: REJECTED. A grant whose claim already exists (or that repeats one earlier in the list)
 * gets undefined, and its reservation goes back to the budget. Answers per grant, in the order given.
 *
 * The usual case (a crowd completing one mission) takes one statement per budget: when all of a
 * budget's grants are of one amount and a stripe nobody holds has room for all of them, the take
 * and the claims are written together. Otherwise reserveMany shares out the budget (stripes,
 * savepoint, ordered gather) and one statement at the end writes the claims of those grants.
 */
export async function grantClaims(trx: Transaction<DB>, grants: readonly Grant[]): Promise<Array<{ id: string; status: ClaimStatus } | undefined>> {
  const ids = grants.map(() => newId('clm'));
  const answers: Array<{ id: string; status: ClaimStatus } | undefined> = grants.map(() => undefined);
  const reserved = grants.map(() => false);
  const rest: number[] = [];
  for (const budgetId of [...new Set(grants.map((g) => g.budget.id))].sort()) {
    const indices = grants.flatMap((g, i) => (g.budget.id === budgetId ? [i] : []));
    const first = grants[indices[0] as number] as Grant;
    if (indices.every((i) => (grants[i] as Grant).amount === first.amount)) {
      const taken = await claimFromOneFreeStripe(trx, indices.map((i) => grants[i] as Grant), indices.map((i) => ids[i] as string));
      if (taken) {
        indices.forEach((i, j) => {
          reserved[i] = true;
          answers[i] = taken[j];
        });
        continue;
      }
    }
    const covered = await reserveMany(trx, budgetId, first.budget.stripes, indices.map((i) => ({ amount: (grants[i] as Grant).amount, key: userKey(grants[i] as Grant) })));
    covered.forEach((ok, j) => (reserved[indices[j] as number] = ok));
    rest.push(...indices);
  }
  if (rest.length > 0) {
    const picked = rest.map((i) => grants[i] as Grant);
    const query = sql<{ id: string; status: ClaimStatus }>`
      WITH ${claimsCtes(grantRows(picked, rest.map((i) => ids[i] as string), rest.map((i) => reserved[i] as boolean)), sql`true`)}
      SELECT id, status FROM claim`;
    const inserted = new Map((await trx.executeQuery(prepared('claims_grant', query.compile(trx)))).rows.map((r) => [r.id, r]));
    for (const i of rest) answers[i] = inserted.get(ids[i] as string);
  }
  for (const [i, grant] of grants.entries()) {
    // Already granted for this period: give the reservation back.
    if (answers[i] === undefined && reserved[i]) await release(trx, grant.budget.id, grant.amount, userKey(grant), grant.budget.stripes);
  }
  return answers;
}

/**
 * One statement: take the amounts of all `grants` (one budget, one amount) from a single stripe
 * nobody holds that has room for all of them, and write their claims and history. Answers per
 * grant the claim written (undefined: it already existed), or undefined when no free stripe had
 * room; then nothing was taken, written or locked.
 */
async function claimFromOneFreeStripe(trx: Transaction<DB>, grants: readonly Grant[], ids: readonly string[]) {
  const first = grants[0] as Grant;
  const total = first.amount * BigInt(grants.length);
  const query = sql<{ stripe: number; id: string | null; status: ClaimStatus | null }>`
    WITH ${takeFromOneFreeStripe(first.budget.id, first.budget.stripes, homeStripe(userKey(first), first.budget.stripes), total)},
         ${claimsCtes(grantRows(grants, ids, grants.map(() => true)), sql`EXISTS (SELECT 1 FROM take)`)}
    SELECT t.stripe, c.id, c.status FROM take t LEFT JOIN claim c ON true`;
  const rows = (await trx.executeQuery(prepared('claims_grant_one_stripe', query.compile(trx)))).rows;
  if (rows.length === 0) return undefined;
  const inserted = new Map(rows.filter((r) => r.id !== null).map((r) => [r.id as string, { id: r.id as string, status: r.status as ClaimStatus }]));
  return ids.map((id) => inserted.get(id));
}

/** The grants as rows for claimsCtes: one per grant, in order, with whether it was reserved. */
function grantRows(grants: readonly Grant[], ids: readonly string[], reserved: readonly boolean[]): RawBuilder<unknown> {
  const column = <T>(pick: (g: Grant) => T) => grants.map(pick);
  return sql`
    SELECT * FROM unnest(${ids}::text[], ${column((g) => g.budget.id)}::text[], ${column((g) => g.budget.asset_id)}::text[],
                         ${column((g) => g.partnerId)}::text[], ${column((g) => g.partnerUid)}::text[], ${column((g) => g.promotionId)}::text[],
                         ${column((g) => g.source)}::text[], ${column((g) => g.sourceId)}::text[], ${column((g) => g.periodKey)}::text[],
                         ${column((g) => g.amount.toString())}::numeric[], ${[...reserved]}::boolean[],
                         ${column((g) => g.now.toISOString())}::timestamptz[])
           WITH ORDINALITY AS i(id, budget_id, asset_id, partner_id, partner_uid, promotion_id, source, source_id, period_key, amount, reserved, at, n)`;
}

/**
 * The CTEs `input`, `claim` and `history`: a claim for each row of `rows` (columns id, budget_id,
 * asset_id, partner_id, partner_uid, promotion_id, source, source_id, period_key, amount, reserved,
 * at, n) not granted yet, only when `onlyIf` holds, each with the user's account when linked, and
 * their first history rows. A reserved claim is REQUESTED when its user is linked, else RESERVED;
 * an unreserved one is REJECTED.
 */
export function claimsCtes(rows: RawBuilder<unknown>, onlyIf: RawBuilder<unknown>) {
  return sql`
    input AS (${rows}), claim AS (
      INSERT INTO claims (id, budget_id, asset_id, partner_id, partner_uid, account_id, promotion_id, source, source_id,
                          period_key, amount, status, reason, next_attempt_at, created_at, updated_at)
      SELECT i.id, i.budget_id, i.asset_id, i.partner_id, i.partner_uid, m.account_id, i.promotion_id, i.source, i.source_id,
             i.period_key, i.amount, s.status, CASE WHEN i.reserved THEN NULL ELSE 'BUDGET_EXHAUSTED' END,
             CASE WHEN s.status = 'REQUESTED' THEN i.at END, i.at, i.at
      FROM input i
      LEFT JOIN user_mappings m ON m.partner_id = i.partner_id AND m.partner_uid = i.partner_uid
      CROSS JOIN LATERAL (SELECT CASE WHEN NOT i.reserved THEN 'REJECTED'
                                      WHEN m.account_id IS NOT NULL THEN 'REQUESTED' ELSE 'RESERVED' END AS status) s
      WHERE ${onlyIf}
      ORDER BY i.n
      ON CONFLICT (partner_id, partner_uid, source, source_id, period_key) DO NOTHING
      RETURNING id, status, created_at
    ), history AS (
      INSERT INTO claim_events (claim_id, from_status, to_status, reason, at)
      SELECT claim.id, e.from_status, e.to_status, e.reason, claim.created_at
      FROM claim CROSS JOIN LATERAL (VALUES
        (1, NULL::text, CASE WHEN claim.status = 'REQUESTED' THEN 'RESERVED' ELSE claim.status END,
            CASE WHEN claim.status = 'REJECTED' THEN 'BUDGET_EXHAUSTED' END),
        (2, 'RESERVED', 'REQUESTED', 'user is linked')
      ) AS e(n, from_status, to_status, reason)
      WHERE e.n = 1 OR claim.status = 'REQUESTED'
      ORDER BY claim.id, e.n
    )`;
}

function userKey(grant: Pick<Grant, 'partnerId' | 'partnerUid'>): string {
  return `${grant.partnerId}:${grant.partnerUid}`;
}

/** One grant on its own (a draw's prize, say). */
export async function grantClaim(trx: Transaction<DB>, grant: Grant): Promise<{ id: string; status: ClaimStatus } | undefined> {
  const [answer] = await grantClaims(trx, [grant]);
  return answer;
}

const RECURRENCE_SPAN: Record<Recurrence, number> = { DAILY: 1, WEEKLY: 2, MONTHLY: 3, ONE_TIME: 4 };

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

export async function loadCompletionContext(db: Kysely<DB>, event: Pick<CompletionEvent, 'missionId' | 'groupId' | 'promotionId'>): Promise<CompletionContext> {
  const rule = (column: 'mission_id' | 'mission_group_id', id: string) =>
    db
      .selectFrom('reward_rules as r')
      .innerJoin('budgets as b', 'b.id', 'r.budget_id')
      .select(['r.type', 'r.amount', 'b.id as budget_id', 'b.asset_id', 'b.stripes'])
      .where(`r.${column}`, '=', id)
      .executeTakeFirst();
  const promotion = await db.selectFrom('promotions').select(['type', 'timezone']).where('id', '=', event.promotionId).executeTakeFirstOrThrow();
  const members = await db.selectFrom('missions').select(['id', 'recurrence']).where('mission_group_id', '=', event.groupId).execute();
  return {
    promotionType: promotion.type,
    timezone: promotion.timezone,
    members: members.map((m) => ({ id: m.id, recurrence: m.recurrence as Recurrence })),
    missionRule: await rule('mission_id', event.missionId),
    groupRule: await rule('mission_group_id', event.groupId),
  };
}

/**
 * What a rule pays for one completion: a FIXED rule a grant (returned, to be reserved with the
 * rest of the batch); a LUCKY_DRAW rule on a mission a ticket (written at once, no budget).
 */
async function applyRule(trx: Transaction<DB>, rule: RuleRow, event: CompletionEvent, source: 'MISSION' | 'GROUP', sourceId: string, periodKey: string): Promise<Grant | undefined> {
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
    };
  }
  if (rule.type === 'LUCKY_DRAW' && source === 'MISSION') {
    await trx
      .insertInto('tickets')
      .values({
        id: newId('tkt'),
        partner_id: event.partnerId,
        partner_uid: event.partnerUid,
        mission_id: sourceId,
        budget_id: rule.budget_id,
        period_key: periodKey,
        status: 'RECEIVED',
        created_at: event.completedAt,
      })
      .onConflict((oc) => oc.columns(['partner_id', 'partner_uid', 'mission_id', 'period_key']).doNothing())
      .execute();
  }
  return undefined;
}

/** Holds a transaction-scoped lock per (partner user, mission group) until commit or rollback. */
export async function lockUserGroup(trx: Transaction<DB>, partnerId: string, partnerUid: string, groupId: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`group:${partnerId}:${partnerUid}:${groupId}`}, 0))`.execute(trx);
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
export type CompletionContextOf = (db: Kysely<DB>, event: Pick<CompletionEvent, 'missionId' | 'groupId' | 'promotionId'>) => Promise<CompletionContext>;

export function completionHandler(context: CompletionContextOf): CompletionHandler {
  return async (trx, events) => {
    const grants: Grant[] = [];
    const add = (grant: Grant | undefined) => {
      if (grant) grants.push(grant);
    };
    const facts: Array<{ event: CompletionEvent; context: CompletionContext }> = [];
    for (const event of events) facts.push({ event, context: await context(trx, event) });

    for (const { event, context: c } of facts) {
      if (c.missionRule) add(await applyRule(trx, c.missionRule, event, 'MISSION', event.missionId, event.periodKey));
    }
    const checkIns = facts.filter(({ event, context: c }) => c.promotionType === 'DAILY_CHECK' && c.members.find((m) => m.id === event.missionId)?.recurrence === 'DAILY');
    for (const { event } of sortedBy(checkIns, ({ event: e }) => `${e.partnerId}\u0000${e.partnerUid}\u0000${e.promotionId}`)) {
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
      const periods = c.members.map((m) => ({ id: m.id, recurrence: m.recurrence, period: periodKeyFor(m.recurrence, event.completedAt, c.timezone) }));
      const done = await trx
        .selectFrom('mission_progress')
        .select(sql<number>`count(*)::int`.as('n'))
        .where('partner_id', '=', event.partnerId)
        .where('partner_uid', '=', event.partnerUid)
        .where('completed', '=', true)
        .where((eb) => eb.or(periods.map((p) => eb.and([eb('mission_id', '=', p.id), eb('period_key', '=', p.period)]))))
        .executeTakeFirstOrThrow();
      if (done.n < c.members.length) continue;
      const longest = periods.reduce((a, b) => (RECURRENCE_SPAN[b.recurrence] > RECURRENCE_SPAN[a.recurrence] ? b : a));
      add(await applyRule(trx, c.groupRule as RuleRow, event, 'GROUP', event.groupId, longest.period));
    }
    await grantClaims(trx, grants);
  };
}

function sortedBy<T>(items: readonly T[], key: (item: T) => string): T[] {
  return [...items].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/** The handler without a cache: every completion reads the catalog facts in its transaction. */
export const onMissionCompleted = completionHandler((trx, event) => loadCompletionContext(trx, event));

/** A DAILY_CHECK check-in: extend the user's streak; answers the grant when that streak length has a reward. */
async function recordCheckIn(trx: Transaction<DB>, event: CompletionEvent): Promise<Grant | undefined> {
  const key = { partner_id: event.partnerId, partner_uid: event.partnerUid, promotion_id: event.promotionId };
  const existing = await trx
    .selectFrom('user_streaks')
    .select(['current', 'best', 'last_date'])
    .where('partner_id', '=', key.partner_id)
    .where('partner_uid', '=', key.partner_uid)
    .where('promotion_id', '=', key.promotion_id)
    .forUpdate()
    .executeTakeFirst();
  const before = existing ? { current: existing.current, best: existing.best, lastDate: existing.last_date } : undefined;
  const after = checkIn(before, event.periodKey);
  if (after === before) return undefined;
  await trx
    .insertInto('user_streaks')
    .values({ ...key, current: after.current, best: after.best, last_date: after.lastDate })
    .onConflict((oc) => oc.columns(['partner_id', 'partner_uid', 'promotion_id']).doUpdateSet({ current: after.current, best: after.best, last_date: after.lastDate }))
    .execute();
  const reward = await trx
    .selectFrom('streak_rewards as r')
    .innerJoin('budgets as b', 'b.id', 'r.budget_id')
    .select(['r.amount', 'b.id', 'b.asset_id', 'b.stripes'])
    .where('r.promotion_id', '=', event.promotionId)
    .where('r.days', '=', after.current)
    .executeTakeFirst();
  if (!reward) return undefined;
  return {
    budget: { id: reward.id, asset_id: reward.asset_id, stripes: reward.stripes },
    amount: BigInt(reward.amount),
    partnerId: event.partnerId,
    partnerUid: event.partnerUid,
    promotionId: event.promotionId,
    source: 'STREAK',
    sourceId: `${event.promotionId}:${after.current}`,
    periodKey: after.lastDate,
    now: event.completedAt,
  };
}

/** Replaces a DAILY_CHECK promotion's streak rewards. */
export async function setStreakRewards(db: Kysely<DB>, promotionId: string, items: Array<{ days: number; budgetId: string; amount: string }>) {
  const promotion = await db.selectFrom('promotions').select('type').where('id', '=', promotionId).executeTakeFirst();
  if (!promotion) throw appError('NOT_FOUND_PROMOTION', `no promotion '${promotionId}'`);
  if (promotion.type !== 'DAILY_CHECK') throw appError('VALIDATION_FAILED', 'streak rewards belong to DAILY_CHECK promotions', { field: 'promotionId' });
  const rows: Array<{ promotion_id: string; days: number; budget_id: string; amount: bigint }> = [];
  for (const [index, item] of items.entries()) {
    const budget = await findBudget(db, item.budgetId);
    if (budget.type !== 'FIXED') throw appError('BUDGET_TYPE_MISMATCH', `items.${index}: a streak reward needs a FIXED budget`);
    rows.push({ promotion_id: promotionId, days: item.days, budget_id: budget.id, amount: amountOf(item.amount, await decimalsOf(db, budget.asset_id), `items.${index}.amount`) });
  }
  if (new Set(rows.map((r) => r.days)).size !== rows.length) throw appError('VALIDATION_FAILED', 'each streak length may appear once', { field: 'items' });
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('streak_rewards').where('promotion_id', '=', promotionId).execute();
    if (rows.length > 0) await trx.insertInto('streak_rewards').values(rows).execute();
  });
  return listStreakRewards(db, promotionId);
}

export async function listStreakRewards(db: Kysely<DB>, promotionId: string) {
  const rows = await db
    .selectFrom('streak_rewards as r')
    .innerJoin('budgets as b', 'b.id', 'r.budget_id')
    .innerJoin('reward_assets as a', 'a.id', 'b.asset_id')
    .select(['r.days', 'r.budget_id', 'r.amount', 'a.decimals'])
    .where('r.promotion_id', '=', promotionId)
    .orderBy('r.days')
    .execute();
  return rows.map((r) => ({ days: r.days, budgetId: r.budget_id, amount: formatAmount(r.amount, r.decimals ?? 0) }));
}

/** When a partner user links, their waiting claims get the account and are requested for payout. */
export function releaseWaitingClaims(clock: Clock): UserLinkedHandler {
  return async (trx, event) => {
    const now = clock.now();
    await trx
      .updateTable('claims')
      .set({ account_id: event.accountId, updated_at: now })
      .where('partner_id', '=', event.partnerId)
      .where('partner_uid', '=', event.partnerUid)
      .where('account_id', 'is', null)
      .where('status', '!=', 'RESERVED')
      .execute();
    const moved = await trx
      .updateTable('claims')
      .set({ account_id: event.accountId, status: 'REQUESTED', next_attempt_at: now, updated_at: now })
      .where('partner_id', '=', event.partnerId)
      .where('partner_uid', '=', event.partnerUid)
      .where('status', '=', 'RESERVED')
      .returning('id')
      .execute();
    await recordEvent(trx, moved.map((m) => m.id), 'RESERVED', 'REQUESTED', 'user linked', now);
  };
}

/**
 * RESERVED claims older than `ttlSeconds` (their user never linked) are REJECTED by expiry and
 * their amounts return to the budget. Runs in the payout worker's loop; SKIP LOCKED keeps workers
 * apart and away from a claim that a connect is releasing at this moment.
 */
export async function expireReservations(db: Kysely<DB>, clock: Clock, ttlSeconds: number): Promise<number> {
  const now = clock.now();
  const cutoff = new Date(now.getTime() - ttlSeconds * 1000);
  return db.transaction().execute(async (trx) => {
    const expired = await trx
      .selectFrom('claims as c')
      .innerJoin('budgets as b', 'b.id', 'c.budget_id')
      .select(['c.id', 'c.amount', 'c.budget_id', 'c.partner_id', 'c.partner_uid', 'b.stripes'])
      .where('c.status', '=', 'RESERVED')
      .where('c.created_at', '<', cutoff)
      // A user linked meanwhile is not expired: the link sweep requests the claim instead.
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('user_mappings as m').select('m.account_id').whereRef('m.partner_id', '=', 'c.partner_id').whereRef('m.partner_uid', '=', 'c.partner_uid'))),
      )
      .limit(500)
      .forUpdate('c')
      .skipLocked()
      .execute();
    if (expired.length === 0) return 0;
    await trx.updateTable('claims').set({ status: 'REJECTED', reason: 'EXPIRED', updated_at: now }).where('id', 'in', expired.map((c) => c.id)).execute();
    for (const claim of expired) await release(trx, claim.budget_id, BigInt(claim.amount), `${claim.partner_id}:${claim.partner_uid}`, claim.stripes);
    await recordEvent(trx, expired.map((c) => c.id), 'RESERVED', 'REJECTED', 'expired: the user did not link in time', now);
    return expired.length;
  });
}

/** An operator's move of one claim: RESERVED -> REJECTED (releases the budget), FAILED -> REQUESTED. */
export async function moveClaim(db: Kysely<DB>, clock: Clock, claimId: string, to: 'REJECTED' | 'REQUESTED', reason: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const claim = await trx.selectFrom('claims as c').innerJoin('budgets as b', 'b.id', 'c.budget_id').select(['c.id', 'c.status', 'c.amount', 'c.budget_id', 'c.partner_id', 'c.partner_uid', 'c.account_id', 'b.stripes']).where('c.id', '=', claimId).forUpdate().executeTakeFirst();
    if (!claim) throw appError('NOT_FOUND_CLAIM', `no claim '${claimId}'`);
    if (!canMove(claim.status, to)) throw appError('ILLEGAL_CLAIM_TRANSITION', `a ${claim.status} claim cannot become ${to}`);
    if (to === 'REQUESTED' && claim.account_id === null) throw appError('ILLEGAL_CLAIM_TRANSITION', 'the user is not linked yet; the claim is requested when they link');
    const now = clock.now();
    await trx
      .updateTable('claims')
      .set({ status: to, reason, updated_at: now, ...(to === 'REQUESTED' && { next_attempt_at: now, attempts: 0 }) })
      .where('id', '=', claimId)
      .execute();
    if (to === 'REJECTED') await release(trx, claim.budget_id, BigInt(claim.amount), `${claim.partner_id}:${claim.partner_uid}`, claim.stripes);
    await recordEvent(trx, [claimId], claim.status, to, reason, now);
  });
}

// --- Views ---

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
    .select(['c.id', 'c.status', 'c.amount', 'c.reason', 'c.source', 'c.source_id', 'c.period_key', 'c.partner_id', 'c.partner_uid', 'c.account_id', 'c.promotion_id', 'c.budget_id', 'c.attempts', 'c.created_at', 'c.updated_at', 'a.symbol', 'a.decimals']);
  if (filter.status) query = query.where('c.status', '=', filter.status);
  if (filter.partnerId) query = query.where('c.partner_id', '=', filter.partnerId);
  if (filter.partnerUid) query = query.where('c.partner_uid', '=', filter.partnerUid);
  if (filter.promotionId) query = query.where('c.promotion_id', '=', filter.promotionId);
  if (filter.budgetId) query = query.where('c.budget_id', '=', filter.budgetId);
  if (filter.accountId) query = query.where('c.account_id', '=', filter.accountId);
  const rows = await query.orderBy('c.created_at', 'desc').orderBy('c.id').limit(limit).offset(offset).execute();
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
    partnerId: r.partner_id,
    partnerUid: r.partner_uid,
    accountId: r.account_id,
    promotionId: r.promotion_id,
    budgetId: r.budget_id,
    attempts: r.attempts,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  }));
}

export async function claimHistory(db: Kysely<DB>, claimId: string) {
  const [claim] = await db.selectFrom('claims').select('id').where('id', '=', claimId).execute();
  if (!claim) throw appError('NOT_FOUND_CLAIM', `no claim '${claimId}'`);
  const events = await db.selectFrom('claim_events').selectAll().where('claim_id', '=', claimId).orderBy('id').execute();
  return events.map((e) => ({ from: e.from_status, to: e.to_status, reason: e.reason, at: e.at.toISOString() }));
}

export async function listTickets(db: Kysely<DB>, filter: { status?: 'RECEIVED' | 'DRAWN'; partnerId?: string; partnerUid?: string; accountId?: string }, limit: number, offset: number) {
  let query = db
    .selectFrom('tickets as t')
    .innerJoin('missions as m', 'm.id', 't.mission_id')
    .select(['t.id', 't.status', 't.partner_id', 't.partner_uid', 't.mission_id', 'm.title', 't.period_key', 't.draw_id', 't.won', 't.created_at']);
  if (filter.status) query = query.where('t.status', '=', filter.status);
  if (filter.partnerId) query = query.where('t.partner_id', '=', filter.partnerId);
  if (filter.partnerUid) query = query.where('t.partner_uid', '=', filter.partnerUid);
  if (filter.accountId) {
    const accountId = filter.accountId;
    query = query.where(({ exists, selectFrom }) =>
      exists(selectFrom('user_mappings as u').select('u.partner_uid').whereRef('u.partner_id', '=', 't.partner_id').whereRef('u.partner_uid', '=', 't.partner_uid').where('u.account_id', '=', accountId)),
    );
  }
  const rows = await query.orderBy('t.created_at', 'desc').limit(limit).offset(offset).execute();
  return rows.map((r) => ({
    id: r.id,
    status: r.status,
    partnerId: r.partner_id,
    partnerUid: r.partner_uid,
    missionId: r.mission_id,
    missionTitle: r.title,
    periodKey: r.period_key,
    drawId: r.draw_id,
    won: r.won,
    createdAt: r.created_at.toISOString(),
  }));
}
