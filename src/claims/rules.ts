// Reward rules set by operators: what a mission or a mission group pays (FIXED amount or a
// LUCKY_DRAW ticket) and the streak rewards of DAILY_CHECK promotions.
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import { formatAmount } from '../domain/amounts.ts';
import { newId } from '../domain/ids.ts';
import {
  budgetTypeMismatch,
  duplicateStreakLength,
  groupRewardNeedsComposite,
  invalidAmount,
  promotionNotFound,
  rewardRuleNotFound,
  streakRewardsNeedDailyCheck,
} from '../error-factories.ts';
import { amountOf, decimalsOf, findBudget } from '../budgets/service.ts';
import type { BudgetType } from '../budgets/service.ts';

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
    throw budgetTypeMismatch(`a ${input.type} reward`, input.type, budget.id, budget.type);
  }
  const decimals = await decimalsOf(db, budget.asset_id);
  let amount: bigint | null = null;
  if (input.type === 'FIXED') {
    if (input.amount === undefined) throw invalidAmount('amount', 'a FIXED reward needs an amount');
    amount = amountOf(input.amount, decimals, 'amount');
  } else if (input.amount !== undefined) {
    throw invalidAmount('amount', 'a LUCKY_DRAW reward has no amount (the draw sets the prize)');
  }
  const missionId = 'missionId' in target ? target.missionId : null;
  const groupId = 'groupId' in target ? target.groupId : null;
  if (groupId !== null) {
    const promotion = await db
      .selectFrom('mission_groups as g')
      .innerJoin('promotions as p', 'p.id', 'g.promotion_id')
      .select('p.type')
      .where('g.id', '=', groupId)
      .executeTakeFirst();
    if (promotion?.type !== 'COMPOSITE') throw groupRewardNeedsComposite();
  }
  const row = await db.transaction().execute(async (trx) => {
    await trx
      .deleteFrom('reward_rules')
      .where(missionId ? 'mission_id' : 'mission_group_id', '=', (missionId ?? groupId) as string)
      .execute();
    return trx
      .insertInto('reward_rules')
      .values({
        id: newId('rwd'),
        mission_id: missionId,
        mission_group_id: groupId,
        type: input.type,
        budget_id: budget.id,
        amount,
        created_at: clock.now(),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  });
  return {
    id: row.id,
    type: row.type,
    budgetId: row.budget_id,
    amount: row.amount === null ? null : formatAmount(row.amount, decimals),
  };
}

export async function removeRule(
  db: Kysely<DB>,
  target: { missionId: string } | { groupId: string },
): Promise<void> {
  const removed = await db
    .deleteFrom('reward_rules')
    .where(
      'missionId' in target ? 'mission_id' : 'mission_group_id',
      '=',
      'missionId' in target ? target.missionId : target.groupId,
    )
    .returning('id')
    .executeTakeFirst();
  if (!removed) throw rewardRuleNotFound();
}

/** Replaces a DAILY_CHECK promotion's streak rewards. */
export async function setStreakRewards(
  db: Kysely<DB>,
  promotionId: string,
  items: Array<{ days: number; budgetId: string; amount: string }>,
) {
  const promotion = await db
    .selectFrom('promotions')
    .select('type')
    .where('id', '=', promotionId)
    .executeTakeFirst();
  if (!promotion) throw promotionNotFound(promotionId);
  if (promotion.type !== 'DAILY_CHECK') throw streakRewardsNeedDailyCheck();
  const rows: Array<{ promotion_id: string; days: number; budget_id: string; amount: bigint }> = [];
  for (const [index, item] of items.entries()) {
    const budget = await findBudget(db, item.budgetId);
    if (budget.type !== 'FIXED')
      throw budgetTypeMismatch(`items.${index}: a streak reward`, 'FIXED', budget.id, budget.type);
    rows.push({
      promotion_id: promotionId,
      days: item.days,
      budget_id: budget.id,
      amount: amountOf(item.amount, await decimalsOf(db, budget.asset_id), `items.${index}.amount`),
    });
  }
  if (new Set(rows.map((r) => r.days)).size !== rows.length) throw duplicateStreakLength();
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
  return rows.map((r) => ({
    days: r.days,
    budgetId: r.budget_id,
    amount: formatAmount(r.amount, r.decimals ?? 0),
  }));
}
