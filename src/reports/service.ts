// The console's reports: activity per day over a window ending today, a budget's history, and the
// rewards of a promotion. Read-only; amounts leave here as decimal strings in whole units.
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import { formatAmount } from '../domain/amounts.ts';
import { getPromotion } from '../catalog/service.ts';
import { getBudget } from '../budgets/service.ts';
import * as store from './store.ts';

const DAY_MS = 86_400_000;

/** The UTC days [today - days + 1 .. today], oldest first. */
export function dayWindow(now: Date, days: number): { from: Date; to: Date; keys: string[] } {
  const todayStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const from = new Date(todayStart - (days - 1) * DAY_MS);
  const keys = Array.from({ length: days }, (_, i) =>
    new Date(from.getTime() + i * DAY_MS).toISOString().slice(0, 10),
  );
  return { from, to: new Date(todayStart + DAY_MS), keys };
}

export interface DailyActivity {
  day: string;
  completions: number;
  rewardsGranted: number;
  rewardsRefused: number;
  payouts: Array<{ assetId: string; symbol: string; decimals: number; amount: string; count: number }>;
}

export async function dailyActivity(
  db: Kysely<DB>,
  clock: Clock,
  days: number,
  partnerId?: string,
): Promise<{ from: string; to: string; days: DailyActivity[] }> {
  const window = dayWindow(clock.now(), days);
  const [completions, claims, payouts] = await Promise.all([
    store.completionsPerDay(db, window.from, window.to, partnerId),
    store.claimsGrantedPerDay(db, window.from, window.to, partnerId),
    store.payoutsPerDay(db, window.from, window.to, partnerId),
  ]);
  return {
    from: window.keys[0] ?? '',
    to: window.keys[window.keys.length - 1] ?? '',
    days: window.keys.map((day) => {
      const granted = claims.find((c) => c.day === day);
      return {
        day,
        completions: completions.find((c) => c.day === day)?.n ?? 0,
        rewardsGranted: granted?.granted ?? 0,
        rewardsRefused: granted?.refused ?? 0,
        payouts: payouts
          .filter((p) => p.day === day)
          .map((p) => ({
            assetId: p.assetId,
            symbol: p.symbol,
            decimals: p.decimals ?? 0,
            amount: formatAmount(p.amount, p.decimals ?? 0),
            count: p.count,
          })),
      };
    }),
  };
}

export interface BudgetHistoryPoint {
  day: string;
  reserved: string;
  released: string;
  paid: string;
  /** Running totals up to the end of the day: still held (reserved, not released or paid) and paid. */
  heldToDate: string;
  paidToDate: string;
}

export async function budgetHistory(db: Kysely<DB>, budgetId: string) {
  const budget = await getBudget(db, budgetId);
  const rows = await store.budgetMovementsPerDay(db, budgetId);
  let committed = 0n;
  let paid = 0n;
  const points: BudgetHistoryPoint[] = rows.map((r) => {
    committed += BigInt(r.reserved) - BigInt(r.released);
    paid += BigInt(r.paid);
    const fmt = (v: bigint | string) => formatAmount(v, budget.decimals);
    return {
      day: r.day,
      reserved: fmt(r.reserved),
      released: fmt(r.released),
      paid: fmt(r.paid),
      heldToDate: fmt(committed - paid),
      paidToDate: fmt(paid),
    };
  });
  return { budget, items: points };
}

export async function promotionRewards(db: Kysely<DB>, promotionId: string) {
  await getPromotion(db, promotionId);
  const rows = await store.rewardsOfPromotion(db, promotionId);
  return rows.map((r) => ({
    missionId: r.mission_id,
    missionGroupId: r.mission_group_id,
    type: r.type,
    budgetId: r.budget_id,
    budgetName: r.budget_name,
    amount: r.amount === null ? null : formatAmount(r.amount, r.decimals ?? 0),
    assetSymbol: r.symbol,
    decimals: r.decimals ?? 0,
  }));
}
