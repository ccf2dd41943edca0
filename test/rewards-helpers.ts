// Helpers of the reward tests: set-up through the operator API, reports through the partner API,
// a worker cycle, and a snapshot of every reward table to prove that a refused call changed nothing.
import { expect } from 'vitest';
import { sql } from 'kysely';
import type { LightMyRequestResponse } from 'fastify';
import { partnerCall, setupMission } from './harness.ts';
import type { MissionSetup, TestContext } from './harness.ts';
import { runRewardCycle } from '../src/rewards/index.ts';
import type { RewardWorkerOptions } from '../src/rewards/index.ts';

export function ok<T = Record<string, unknown>>(response: LightMyRequestResponse, status = 200): T {
  expect(response.statusCode, response.body).toBe(status);
  return response.json<T>();
}

/** A refusal: the status, the catalog body, and the code. */
export function refused(response: LightMyRequestResponse, status: number, code: number): Record<string, unknown> {
  expect(response.statusCode, response.body).toBe(status);
  const body = response.json<Record<string, unknown>>();
  expect(body).toMatchObject({ code, name: expect.any(String), message: expect.any(String) });
  return body;
}

export async function createAsset(ctx: TestContext, body: Record<string, unknown> = { symbol: 'PNT', name: 'Points', decimals: 2 }): Promise<string> {
  return ok<{ id: string }>(await ctx.admin('POST', '/admin/v1/reward-assets', body), 201).id;
}

export async function createBudget(
  ctx: TestContext,
  body: { assetId: string; total: string; type?: 'FIXED' | 'LUCKY_DRAW'; stripes?: number; name?: string },
): Promise<string> {
  const response = await ctx.admin('POST', '/admin/v1/budgets', { type: 'FIXED', name: 'Budget', ...body });
  return ok<{ id: string }>(response, 201).id;
}

export async function budgetOf(ctx: TestContext, budgetId: string) {
  return ok<{ total: string; remaining: string; reserved: string; paid: string; rejected: number }>(await ctx.admin('GET', `/admin/v1/budgets/${budgetId}`));
}

/** A mission with a FIXED reward of `amount` from a new budget of `total`. */
export async function fixedRewardMission(
  ctx: TestContext,
  assetId: string,
  options: { missionKey: string; total: string; amount: string; recurrence?: string; stripes?: number },
): Promise<MissionSetup & { budgetId: string }> {
  const setup = await setupMission(ctx, { missionKey: options.missionKey, recurrence: options.recurrence ?? 'ONE_TIME' });
  const budgetId = await createBudget(ctx, { assetId, total: options.total, ...(options.stripes !== undefined && { stripes: options.stripes }) });
  ok(await ctx.admin('PUT', `/admin/v1/missions/${setup.missionId}/reward`, { type: 'FIXED', budgetId, amount: options.amount }));
  return { ...setup, budgetId };
}

export function complete(ctx: TestContext, setup: Pick<MissionSetup, 'partnerId' | 'apiKey'>, partnerUid: string, missionKey: string) {
  return partnerCall(ctx, setup, { method: 'POST', url: '/v1/achieve', body: { partnerUid, missionKey, completed: true } });
}

/** One cycle of the reward worker (link sweep, expiry, retries, due draws, payouts). */
export function workerCycle(ctx: TestContext, options: RewardWorkerOptions = {}) {
  return runRewardCycle(ctx.database.db, ctx.clock, { batchSize: 200, ...options });
}

export async function claimCounts(ctx: TestContext, budgetId: string): Promise<Record<string, number>> {
  const rows = await ctx.database.db
    .selectFrom('claims')
    .select(['status', sql<number>`count(*)::int`.as('n')])
    .where('budget_id', '=', budgetId)
    .groupBy('status')
    .execute();
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

/** Sum of the ledger entries per asset: always zero. */
export async function ledgerSums(ctx: TestContext): Promise<Record<string, string>> {
  const rows = await ctx.database.db
    .selectFrom('ledger_entries')
    .select(['asset_id', sql<string>`sum(amount)::text`.as('sum')])
    .groupBy('asset_id')
    .execute();
  return Object.fromEntries(rows.map((r) => [r.asset_id, r.sum]));
}

/**
 * total = remaining (sum of stripes) + amounts of live claims (RESERVED, REQUESTED, FAILED,
 * SUCCEEDED), for every budget: nothing overspent, nothing lost.
 */
export async function expectBudgetsBalanced(ctx: TestContext): Promise<void> {
  const rows = await sql<{ id: string; total: string; remaining: string; live: string }>`
    SELECT b.id, b.total::text AS total,
      (SELECT coalesce(sum(remaining), 0)::text FROM budget_stripes s WHERE s.budget_id = b.id) AS remaining,
      (SELECT coalesce(sum(amount), 0)::text FROM claims c WHERE c.budget_id = b.id AND c.status <> 'REJECTED') AS live
    FROM budgets b`.execute(ctx.database.db);
  for (const row of rows.rows) {
    expect(BigInt(row.remaining) + BigInt(row.live), `budget ${row.id}`).toBe(BigInt(row.total));
    expect(BigInt(row.remaining) >= 0n).toBe(true);
  }
}

const REWARD_TABLES = [
  'reward_assets',
  'budgets',
  'budget_stripes',
  'reward_rules',
  'streak_rewards',
  'claims',
  'claim_events',
  'tickets',
  'draws',
  'check_streaks',
  'ledger_transfers',
  'ledger_entries',
] as const;

/** Every row of every reward table, to compare before and after a refused call. */
export async function rewardTables(ctx: TestContext): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const table of REWARD_TABLES) {
    const result = await sql<Record<string, unknown>>`SELECT to_jsonb(t)::text AS row FROM ${sql.table(table)} t ORDER BY 1`.execute(ctx.database.db);
    out[table] = result.rows.map((r) => r.row);
  }
  return out;
}
