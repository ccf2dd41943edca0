// Reward set-up, the operator's side: assets, budgets (creation, top-up, views), rewards on missions
// and mission groups, and streak rewards of DAILY_CHECK promotions.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import { AmountError, formatAmount, MAX_BASE_UNITS, parseAmount } from '../domain/amounts.ts';
import { newId } from '../domain/ids.ts';
import { appError } from '../errors.ts';
import { addToStripes, DEFAULT_STRIPES, splitOverStripes } from './reservation.ts';
import type { RewardType } from './store.ts';

export type BudgetType = RewardType;

/** Parses a JSON amount with the asset's decimals; a bad one is 400 INVALID_AMOUNT naming the field. */
export function amountOf(text: string, decimals: number, field: string): bigint {
  try {
    return parseAmount(text, decimals);
  } catch (error) {
    if (error instanceof AmountError) throw appError('INVALID_AMOUNT', `${field}: ${error.message}`, { field });
    throw error;
  }
}

// --- Assets ---

export interface AssetView {
  id: string;
  type: 'FT';
  symbol: string;
  name: string;
  decimals: number | null;
  createdAt: string;
  updatedAt: string;
}

type AssetRow = { id: string; type: 'FT'; symbol: string; name: string; decimals: number | null; created_at: Date; updated_at: Date };

function assetView(row: AssetRow): AssetView {
  return {
    id: row.id,
    type: row.type,
    symbol: row.symbol,
    name: row.name,
    decimals: row.decimals,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export async function createAsset(
  db: Kysely<DB>,
  clock: Clock,
  input: { type?: 'FT'; symbol: string; name: string; decimals?: number | null },
): Promise<AssetView> {
  const now = clock.now();
  const row = await db
    .insertInto('reward_assets')
    .values({ id: newId('ast'), symbol: input.symbol, name: input.name, decimals: input.decimals ?? null, created_at: now, updated_at: now })
    .returningAll()
    .executeTakeFirstOrThrow();
  return assetView(row);
}

export async function listAssets(db: Kysely<DB>, page: { limit: number; offset: number }): Promise<AssetView[]> {
  const rows = await db.selectFrom('reward_assets').selectAll().orderBy('created_at').orderBy('id').limit(page.limit).offset(page.offset).execute();
  return rows.map(assetView);
}

async function findAsset(db: Kysely<DB>, id: string): Promise<AssetRow> {
  const row = await db.selectFrom('reward_assets').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw appError('NOT_FOUND_REWARD_ASSET', `no reward asset '${id}'`, { field: 'assetId' });
  return row;
}

export async function getAsset(db: Kysely<DB>, id: string): Promise<AssetView> {
  return assetView(await findAsset(db, id));
}

/** Decimals may be set once: after that, every stored amount depends on them. */
export async function updateAsset(
  db: Kysely<DB>,
  clock: Clock,
  id: string,
  input: { symbol?: string; name?: string; decimals?: number },
): Promise<AssetView> {
  return db.transaction().execute(async (trx) => {
    const asset = await trx.selectFrom('reward_assets').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
    if (!asset) throw appError('NOT_FOUND_REWARD_ASSET', `no reward asset '${id}'`);
    if (input.decimals !== undefined && asset.decimals !== null && asset.decimals !== input.decimals) {
      throw appError('DECIMALS_ALREADY_SET', `asset '${id}' already has ${asset.decimals} decimals; they cannot change`, {
        field: 'decimals',
      });
    }
    const row = await trx
      .updateTable('reward_assets')
      .set({
        ...(input.symbol !== undefined && { symbol: input.symbol }),
        ...(input.name !== undefined && { name: input.name }),
        ...(input.decimals !== undefined && { decimals: input.decimals }),
        updated_at: clock.now(),
      })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return assetView(row);
  });
}

/** The asset's decimals, or 1402 when they are not set (such an asset cannot back a reward). */
export async function decimalsOf(db: Kysely<DB>, assetId: string): Promise<number> {
  const asset = await findAsset(db, assetId);
  if (asset.decimals === null) {
    throw appError('NOT_SET_REWARD_ASSET_DECIMALS', `reward asset '${assetId}' has no decimals set; set them before using it`);
  }
  return asset.decimals;
}

// --- Budgets ---

export interface BudgetView {
  id: string;
  type: BudgetType;
  name: string;
  assetId: string;
  assetSymbol: string;
  decimals: number;
  stripes: number;
  total: string;
  remaining: string;
  reserved: string;
  paid: string;
  rejected: number;
  createdAt: string;
  updatedAt: string;
}

export async function createBudget(
  db: Kysely<DB>,
  clock: Clock,
  input: { type: BudgetType; assetId: string; name: string; total: string; stripes?: number },
): Promise<BudgetView> {
  const decimals = await decimalsOf(db, input.assetId);
  const total = amountOf(input.total, decimals, 'total');
  const stripes = input.stripes ?? DEFAULT_STRIPES;
  const id = newId('bdg');
  const now = clock.now();
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('budgets')
      .values({ id, type: input.type, asset_id: input.assetId, name: input.name, total, stripes, created_at: now, updated_at: now })
      .execute();
    await trx
      .insertInto('budget_stripes')
      .values(splitOverStripes(total, stripes).map((remaining, stripe) => ({ budget_id: id, stripe, remaining })))
      .execute();
  });
  return getBudget(db, id);
}

export async function findBudget(db: Kysely<DB>, id: string, field = 'budgetId') {
  const row = await db.selectFrom('budgets').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw appError('NOT_FOUND_REWARD_BUDGET', `no reward budget '${id}'`, { field });
  return row;
}

/** Adds to a budget's total and to its stripes, in one transaction. */
export async function topUpBudget(db: Kysely<DB>, clock: Clock, id: string, amountText: string): Promise<BudgetView> {
  const budget = await db.selectFrom('budgets').selectAll().where('id', '=', id).executeTakeFirst();
  if (!budget) throw appError('NOT_FOUND_REWARD_BUDGET', `no reward budget '${id}'`);
  const amount = amountOf(amountText, await decimalsOf(db, budget.asset_id), 'amount');
  await db.transaction().execute(async (trx) => {
    // The budget row lock orders concurrent top-ups, so the overflow check below holds.
    const current = await trx.selectFrom('budgets').select(sql<string>`total::text`.as('total')).where('id', '=', id).forUpdate().executeTakeFirstOrThrow();
    if (BigInt(current.total) + amount > MAX_BASE_UNITS) {
      throw appError('INVALID_AMOUNT', 'amount: the total would exceed the largest amount a budget holds (numeric(78,0))', { field: 'amount' });
    }
    await trx
      .updateTable('budgets')
      .set({ total: sql`total + ${amount.toString()}::numeric`, updated_at: clock.now() })
      .where('id', '=', id)
      .execute();
    await addToStripes(trx, budget, amount);
  });
  return getBudget(db, id);
}

function budgetQuery(db: Kysely<DB>) {
  const sumOf = (statuses: readonly string[]) =>
    sql<string>`(SELECT coalesce(sum(c.amount), 0)::text FROM claims c WHERE c.budget_id = b.id AND c.status IN (${sql.join(statuses)}))`;
  return db
    .selectFrom('budgets as b')
    .innerJoin('reward_assets as a', 'a.id', 'b.asset_id')
    .select([
      'b.id',
      'b.type',
      'b.name',
      'b.asset_id',
      'b.stripes',
      'a.symbol',
      'a.decimals',
      sql<string>`b.total::text`.as('total'),
      'b.created_at',
      'b.updated_at',
      sql<string>`(SELECT coalesce(sum(s.remaining), 0)::text FROM budget_stripes s WHERE s.budget_id = b.id)`.as('remaining'),
      sumOf(['RESERVED', 'REQUESTED', 'FAILED']).as('reserved'),
      sumOf(['SUCCEEDED']).as('paid'),
      sql<number>`(SELECT count(*)::int FROM claims c WHERE c.budget_id = b.id AND c.status = 'REJECTED')`.as('rejected'),
    ]);
}

type BudgetRow = Awaited<ReturnType<ReturnType<typeof budgetQuery>['executeTakeFirstOrThrow']>>;

function budgetView(row: BudgetRow): BudgetView {
  const decimals = row.decimals ?? 0;
  return {
    id: row.id,
    type: row.type,
    name: row.name,
    assetId: row.asset_id,
    assetSymbol: row.symbol,
    decimals,
    stripes: row.stripes,
    total: formatAmount(row.total, decimals),
    remaining: formatAmount(row.remaining, decimals),
    reserved: formatAmount(row.reserved, decimals),
    paid: formatAmount(row.paid, decimals),
    rejected: Number(row.rejected),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export async function getBudget(db: Kysely<DB>, id: string): Promise<BudgetView> {
  const row = await budgetQuery(db).where('b.id', '=', id).executeTakeFirst();
  if (!row) throw appError('NOT_FOUND_REWARD_BUDGET', `no reward budget '${id}'`);
  return budgetView(row);
}

export async function listBudgets(
  db: Kysely<DB>,
  filter: { type?: BudgetType; assetId?: string; limit: number; offset: number },
): Promise<BudgetView[]> {
  let query = budgetQuery(db);
  if (filter.type !== undefined) query = query.where('b.type', '=', filter.type);
  if (filter.assetId !== undefined) query = query.where('b.asset_id', '=', filter.assetId);
  const rows = await query.orderBy('b.created_at').orderBy('b.id').limit(filter.limit).offset(filter.offset).execute();
  return rows.map(budgetView);
}

// --- Rewards on missions and mission groups ---

export interface RuleView {
  id: string;
  target: 'MISSION' | 'GROUP';
  targetId: string;
  type: BudgetType;
  budgetId: string;
  amount: string | null;
  assetSymbol: string;
  createdAt: string;
}

export type RuleTarget = { missionId: string } | { groupId: string };

async function promotionOfTarget(db: Kysely<DB>, target: RuleTarget) {
  if ('missionId' in target) {
    const row = await db
      .selectFrom('missions as m')
      .leftJoin('mission_groups as g', 'g.id', 'm.mission_group_id')
      .leftJoin('promotions as p', 'p.id', 'g.promotion_id')
      .select(['m.id', 'p.type'])
      .where('m.id', '=', target.missionId)
      .executeTakeFirst();
    if (!row) throw appError('NOT_FOUND_MISSION', `no mission '${target.missionId}'`);
    return row;
  }
  const row = await db
    .selectFrom('mission_groups as g')
    .leftJoin('promotions as p', 'p.id', 'g.promotion_id')
    .select(['g.id', 'p.type'])
    .where('g.id', '=', target.groupId)
    .executeTakeFirst();
  if (!row) throw appError('NOT_FOUND_MISSION_GROUP', `no mission group '${target.groupId}'`);
  return row;
}

function ruleQuery(db: Kysely<DB>) {
  return db
    .selectFrom('reward_rules as r')
    .innerJoin('budgets as b', 'b.id', 'r.budget_id')
    .innerJoin('reward_assets as a', 'a.id', 'b.asset_id')
    .select(['r.id', 'r.mission_id', 'r.mission_group_id', 'r.type', 'r.budget_id', sql<string | null>`r.amount::text`.as('amount'), 'r.created_at', 'a.symbol', 'a.decimals']);
}

function ruleView(row: Awaited<ReturnType<ReturnType<typeof ruleQuery>['executeTakeFirstOrThrow']>>): RuleView {
  return {
    id: row.id,
    target: row.mission_id !== null ? 'MISSION' : 'GROUP',
    targetId: (row.mission_id ?? row.mission_group_id) as string,
    type: row.type,
    budgetId: row.budget_id,
    amount: row.amount === null ? null : formatAmount(row.amount, row.decimals ?? 0),
    assetSymbol: row.symbol,
    createdAt: row.created_at.toISOString(),
  };
}

/**
 * Sets (or replaces) the reward of a mission, or of a mission group of a COMPOSITE promotion:
 * FIXED with an amount, or LUCKY_DRAW (a ticket; the draw sets the prize). The budget's type must
 * match the reward's. Claims already made keep their own amount and budget.
 */
export async function setRule(
  db: Kysely<DB>,
  clock: Clock,
  target: RuleTarget,
  input: { type: BudgetType; budgetId: string; amount?: string },
): Promise<RuleView> {
  const owner = await promotionOfTarget(db, target);
  if ('groupId' in target && owner.type !== 'COMPOSITE') {
    throw appError('PROMOTION_TYPE_MISMATCH', `mission group rewards belong to COMPOSITE promotions; this group's promotion is ${owner.type ?? 'gone'}`);
  }
  const budget = await findBudget(db, input.budgetId);
  if (budget.type !== input.type) {
    throw appError('BUDGET_TYPE_MISMATCH', `a ${input.type} reward needs a ${input.type} budget; budget '${budget.id}' is ${budget.type}`, {
      field: 'budgetId',
    });
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
  const id = await db.transaction().execute(async (trx) => {
    await trx
      .deleteFrom('reward_rules')
      .where(missionId !== null ? 'mission_id' : 'mission_group_id', '=', (missionId ?? groupId) as string)
      .execute();
    const row = await trx
      .insertInto('reward_rules')
      .values({ id: newId('rwd'), mission_id: missionId, mission_group_id: groupId, type: input.type, budget_id: budget.id, amount, created_at: clock.now() })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  });
  return ruleView(await ruleQuery(db).where('r.id', '=', id).executeTakeFirstOrThrow());
}

export async function getRule(db: Kysely<DB>, target: RuleTarget): Promise<RuleView> {
  await promotionOfTarget(db, target);
  const row = await ruleQuery(db)
    .where('missionId' in target ? 'r.mission_id' : 'r.mission_group_id', '=', 'missionId' in target ? target.missionId : target.groupId)
    .executeTakeFirst();
  if (!row) throw appError('NOT_FOUND_REWARD_RULE', 'no reward is set there');
  return ruleView(row);
}

export async function removeRule(db: Kysely<DB>, target: RuleTarget): Promise<void> {
  await promotionOfTarget(db, target);
  const removed = await db
    .deleteFrom('reward_rules')
    .where('missionId' in target ? 'mission_id' : 'mission_group_id', '=', 'missionId' in target ? target.missionId : target.groupId)
    .returning('id')
    .executeTakeFirst();
  if (!removed) throw appError('NOT_FOUND_REWARD_RULE', 'no reward is set there');
}

// --- Streak rewards (DAILY_CHECK promotions) ---

export interface StreakRewardView {
  id: string;
  promotionId: string;
  days: number;
  type: 'FIXED';
  budgetId: string;
  amount: string;
  assetSymbol: string;
  createdAt: string;
}

async function dailyCheckPromotion(db: Kysely<DB>, promotionId: string): Promise<void> {
  const promotion = await db.selectFrom('promotions').select(['id', 'type']).where('id', '=', promotionId).executeTakeFirst();
  if (!promotion) throw appError('NOT_FOUND_PROMOTION', `no promotion '${promotionId}'`);
  if (promotion.type !== 'DAILY_CHECK') {
    throw appError('PROMOTION_TYPE_MISMATCH', `streak rewards belong to DAILY_CHECK promotions; '${promotionId}' is ${promotion.type}`);
  }
}

function streakRewardQuery(db: Kysely<DB>) {
  return db
    .selectFrom('streak_rewards as r')
    .innerJoin('budgets as b', 'b.id', 'r.budget_id')
    .innerJoin('reward_assets as a', 'a.id', 'b.asset_id')
    .select(['r.id', 'r.promotion_id', 'r.days', 'r.budget_id', sql<string>`r.amount::text`.as('amount'), 'r.created_at', 'a.symbol', 'a.decimals']);
}

function streakRewardView(row: Awaited<ReturnType<ReturnType<typeof streakRewardQuery>['executeTakeFirstOrThrow']>>): StreakRewardView {
  return {
    id: row.id,
    promotionId: row.promotion_id,
    days: row.days,
    type: 'FIXED',
    budgetId: row.budget_id,
    amount: formatAmount(row.amount, row.decimals ?? 0),
    assetSymbol: row.symbol,
    createdAt: row.created_at.toISOString(),
  };
}

/** Pays `amount` from a FIXED budget each time a user's streak reaches exactly `days` days. */
export async function setStreakReward(
  db: Kysely<DB>,
  clock: Clock,
  promotionId: string,
  days: number,
  input: { type?: 'FIXED'; budgetId: string; amount: string },
): Promise<StreakRewardView> {
  await dailyCheckPromotion(db, promotionId);
  const budget = await findBudget(db, input.budgetId);
  if (budget.type !== 'FIXED') {
    throw appError('BUDGET_TYPE_MISMATCH', `a streak reward is FIXED and needs a FIXED budget; budget '${budget.id}' is ${budget.type}`, {
      field: 'budgetId',
    });
  }
  const amount = amountOf(input.amount, await decimalsOf(db, budget.asset_id), 'amount');
  await db
    .insertInto('streak_rewards')
    .values({ id: newId('srw'), promotion_id: promotionId, days, budget_id: budget.id, amount, created_at: clock.now() })
    .onConflict((oc) => oc.columns(['promotion_id', 'days']).doUpdateSet({ budget_id: budget.id, amount, created_at: clock.now() }))
    .execute();
  const row = await streakRewardQuery(db).where('r.promotion_id', '=', promotionId).where('r.days', '=', days).executeTakeFirstOrThrow();
  return streakRewardView(row);
}

export async function listStreakRewards(db: Kysely<DB>, promotionId: string): Promise<StreakRewardView[]> {
  await dailyCheckPromotion(db, promotionId);
  return (await streakRewardQuery(db).where('r.promotion_id', '=', promotionId).orderBy('r.days').execute()).map(streakRewardView);
}

export async function removeStreakReward(db: Kysely<DB>, promotionId: string, days: number): Promise<void> {
  await dailyCheckPromotion(db, promotionId);
  const removed = await db
    .deleteFrom('streak_rewards')
    .where('promotion_id', '=', promotionId)
    .where('days', '=', days)
    .returning('id')
    .executeTakeFirst();
  if (!removed) throw appError('NOT_FOUND_REWARD_RULE', `no streak reward for ${days} days in promotion '${promotionId}'`);
}
