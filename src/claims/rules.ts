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
import {
  deleteRuleOf,
  deleteRuleReturning,
  deleteStreakRewards,
  insertRule,
  insertStreakRewards,
  selectGroupPromotionType,
  selectPromotionType,
  selectStreakRewards,
} from './store.ts';

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
    const promotion = await selectGroupPromotionType(db, groupId);
    if (promotion?.type !== 'COMPOSITE') throw groupRewardNeedsComposite();
  }
  const row = await db.transaction().execute(async (trx) => {
    await deleteRuleOf(trx, missionId, groupId);
    return insertRule(trx, {
      id: newId('rwd'),
      mission_id: missionId,
      mission_group_id: groupId,
      type: input.type,
      budget_id: budget.id,
      amount,
      created_at: clock.now(),
    });
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
  const removed = await deleteRuleReturning(db, target);
  if (!removed) throw rewardRuleNotFound();
}

/** Replaces a DAILY_CHECK promotion's streak rewards. */
export async function setStreakRewards(
  db: Kysely<DB>,
  promotionId: string,
  items: Array<{ days: number; budgetId: string; amount: string }>,
) {
  const promotion = await selectPromotionType(db, promotionId);
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
    await deleteStreakRewards(trx, promotionId);
    if (rows.length > 0) await insertStreakRewards(trx, rows);
  });
  return listStreakRewards(db, promotionId);
}

export async function listStreakRewards(db: Kysely<DB>, promotionId: string) {
  const rows = await selectStreakRewards(db, promotionId);
  return rows.map((r) => ({
    days: r.days,
    budgetId: r.budget_id,
    amount: formatAmount(r.amount, r.decimals ?? 0),
  }));
}
