// The rewards admin routes the other reward tests do not walk through: asset and budget reads and
// lists, removing mission and group rewards, streak rewards, a paid account's balances, and draw
// reads and lists.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { createAccount, partnerCall, setupMission, startTestApp } from './harness.ts';
import type { MissionSetup, TestContext } from './harness.ts';
import { runPayoutBatch } from '../src/payout/worker.ts';

let ctx: TestContext;
let setup: MissionSetup;

function ok<T = Record<string, unknown>>(response: LightMyRequestResponse, status = 200): T {
  expect(response.statusCode, response.body).toBe(status);
  return response.json<T>();
}

beforeAll(async () => {
  ctx = await startTestApp({ now: '2026-11-22T03:00:00Z' });
  setup = await setupMission(ctx, { missionKey: 'admin-happy', recurrence: 'ONE_TIME' });
});
afterAll(async () => {
  await ctx?.close();
});

describe('rewards admin routes', () => {
  it('read and list assets and budgets, with amounts exact to 18 decimals', async () => {
    const asset = ok<{ id: string }>(
      await ctx.admin('POST', '/admin/v1/reward-assets', { symbol: 'ETHX', name: 'Eighteen', decimals: 18 }),
      201,
    );
    expect(ok(await ctx.admin('GET', `/admin/v1/reward-assets/${asset.id}`))).toMatchObject({
      id: asset.id,
      type: 'FT',
      symbol: 'ETHX',
      decimals: 18,
    });
    expect(
      ok<{ items: Array<{ id: string }> }>(await ctx.admin('GET', '/admin/v1/reward-assets')).items.map(
        (a) => a.id,
      ),
    ).toContain(asset.id);
    const budget = ok<{ id: string }>(
      await ctx.admin('POST', '/admin/v1/budgets', {
        type: 'FIXED',
        assetId: asset.id,
        name: 'Exact',
        total: '1000.000000000000000001',
        stripes: 3,
      }),
      201,
    );
    expect(ok(await ctx.admin('GET', `/admin/v1/budgets/${budget.id}`))).toMatchObject({
      total: '1000.000000000000000001',
      remaining: '1000.000000000000000001',
      reserved: '0',
      paid: '0',
      rejected: 0,
    });
    // A top-up of one base unit spread over three stripes loses nothing.
    expect(
      ok(
        await ctx.admin('POST', `/admin/v1/budgets/${budget.id}/top-up`, { amount: '0.000000000000000001' }),
      ),
    ).toMatchObject({
      total: '1000.000000000000000002',
      remaining: '1000.000000000000000002',
    });
    const listed = ok<{ items: Array<{ id: string }> }>(
      await ctx.admin('GET', '/admin/v1/budgets?limit=500'),
    );
    expect(listed.items.map((b) => b.id)).toContain(budget.id);
  });

  it('remove a mission reward and a group reward', async () => {
    const asset = ok<{ id: string }>(
      await ctx.admin('POST', '/admin/v1/reward-assets', { symbol: 'PNT', name: 'Points', decimals: 2 }),
      201,
    ).id;
    const budgetId = ok<{ id: string }>(
      await ctx.admin('POST', '/admin/v1/budgets', { type: 'FIXED', assetId: asset, name: 'r', total: '10' }),
      201,
    ).id;
    for (const url of [
      `/admin/v1/missions/${setup.missionId}/reward`,
      `/admin/v1/mission-groups/${setup.groupId}/reward`,
    ]) {
      expect(ok(await ctx.admin('PUT', url, { type: 'FIXED', budgetId, amount: '1.5' }))).toMatchObject({
        type: 'FIXED',
        budgetId,
        amount: '1.5',
      });
      expect((await ctx.admin('DELETE', url)).statusCode).toBe(204);
      expect((await ctx.admin('DELETE', url)).statusCode).toBe(404);
    }
    // Without rewards a completion pays nothing.
    await partnerCall(ctx, setup, {
      method: 'POST',
      url: '/v1/achieve',
      body: { partnerUid: 'nobody', missionKey: 'admin-happy', completed: true },
    });
    expect(
      ok<{ items: unknown[] }>(await ctx.admin('GET', `/admin/v1/claims?budgetId=${budgetId}`)).items,
    ).toEqual([]);
  });

  it('set and read the streak rewards of a DAILY_CHECK promotion', async () => {
    const asset = ok<{ id: string }>(
      await ctx.admin('POST', '/admin/v1/reward-assets', { symbol: 'CHK', name: 'Check', decimals: 0 }),
      201,
    ).id;
    const budgetId = ok<{ id: string }>(
      await ctx.admin('POST', '/admin/v1/budgets', {
        type: 'FIXED',
        assetId: asset,
        name: 's',
        total: '100',
      }),
      201,
    ).id;
    const promotion = ok<{ id: string }>(
      await ctx.admin('POST', '/admin/v1/promotions', {
        partnerId: setup.partnerId,
        type: 'DAILY_CHECK',
        title: 'Daily',
        timezone: 'Asia/Seoul',
        startAt: '2026-01-01T00:00:00Z',
      }),
      201,
    ).id;
    const items = [
      { days: 7, budgetId, amount: '10' },
      { days: 3, budgetId, amount: '2' },
    ];
    ok(await ctx.admin('PUT', `/admin/v1/promotions/${promotion}/streak-rewards`, { items }));
    expect(ok(await ctx.admin('GET', `/admin/v1/promotions/${promotion}/streak-rewards`))).toEqual({
      items: [items[1], items[0]],
    });
    ok(await ctx.admin('PUT', `/admin/v1/promotions/${promotion}/streak-rewards`, { items: [] }));
    expect(ok(await ctx.admin('GET', `/admin/v1/promotions/${promotion}/streak-rewards`))).toEqual({
      items: [],
    });
  });

  it("show a paid account's balances, and read and list draws", async () => {
    const asset = ok<{ id: string }>(
      await ctx.admin('POST', '/admin/v1/reward-assets', { symbol: 'BAL', name: 'Balance', decimals: 2 }),
      201,
    ).id;
    const fixed = ok<{ id: string }>(
      await ctx.admin('POST', '/admin/v1/budgets', { type: 'FIXED', assetId: asset, name: 'b', total: '10' }),
      201,
    ).id;
    const mission = await setupMission(ctx, { missionKey: 'balance', recurrence: 'ONE_TIME' });
    ok(
      await ctx.admin('PUT', `/admin/v1/missions/${mission.missionId}/reward`, {
        type: 'FIXED',
        budgetId: fixed,
        amount: '2.5',
      }),
    );
    const accountId = await createAccount(ctx, {
      link: { partnerId: mission.partnerId, partnerUid: 'saver' },
    });
    await partnerCall(ctx, mission, {
      method: 'POST',
      url: '/v1/achieve',
      body: { partnerUid: 'saver', missionKey: 'balance', completed: true },
    });
    expect(await runPayoutBatch(ctx.database.db, ctx.clock)).toBe(1);
    expect(ok(await ctx.admin('GET', `/admin/v1/accounts/${accountId}/balances`))).toEqual({
      items: [{ assetId: asset, symbol: 'BAL', name: 'Balance', decimals: 2, balance: '2.5' }],
    });

    const lucky = ok<{ id: string }>(
      await ctx.admin('POST', '/admin/v1/budgets', {
        type: 'LUCKY_DRAW',
        assetId: asset,
        name: 'l',
        total: '10',
      }),
      201,
    ).id;
    const draw = ok<{ id: string; commitment: string }>(
      await ctx.admin('POST', '/admin/v1/draws', {
        budgetId: lucky,
        title: 'Weekly',
        prizeAmount: '1',
        winnersCount: 2,
        scheduledAt: '2026-11-29T00:00:00Z',
      }),
      201,
    );
    expect(ok(await ctx.admin('GET', `/admin/v1/draws/${draw.id}`))).toMatchObject({
      id: draw.id,
      budgetId: lucky,
      commitment: draw.commitment,
      seed: null,
      winners: null,
    });
    const listed = ok<{ items: Array<{ id: string }> }>(await ctx.admin('GET', '/admin/v1/draws?limit=10'));
    expect(listed.items.map((d) => d.id)).toContain(draw.id);
  });
});
