// The console's reports: activity per day, a budget's history with running totals, the rewards
// of a promotion; a VIEWER may read them all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, partnerCall, setupMission, startTestApp } from './harness.ts';
import type { MissionSetup, TestContext } from './harness.ts';
import { runPayoutBatch } from '../src/payout/worker.ts';

let ctx: TestContext;
let setup: MissionSetup;
let budgetId: string;
let viewer: string;

function achieve(partnerUid: string) {
  return partnerCall(ctx, setup, {
    method: 'POST',
    url: '/v1/achieve',
    body: { partnerUid, missionKey: 'daily-login', completed: true },
  });
}

beforeAll(async () => {
  ctx = await startTestApp({ now: '2026-11-20T03:00:00Z' });
  setup = await setupMission(ctx, { missionKey: 'daily-login', recurrence: 'DAILY' });
  const asset = (
    await ctx.admin('POST', '/admin/v1/reward-assets', { symbol: 'PNT', name: 'Points', decimals: 2 })
  ).json<{ id: string }>();
  budgetId = (
    await ctx.admin('POST', '/admin/v1/budgets', {
      type: 'FIXED',
      assetId: asset.id,
      name: 'Daily points',
      total: '10',
    })
  ).json<{ id: string }>().id;
  await ctx.admin('PUT', `/admin/v1/missions/${setup.missionId}/reward`, {
    type: 'FIXED',
    budgetId,
    amount: '1.25',
  });
  viewer = (await ctx.admin('POST', '/admin/v1/admin-credentials', { name: 'Viewer', role: 'VIEWER' })).json<{
    secret: string;
  }>().secret;

  // The 20th: two linked users complete and are paid. The 22nd: one more, not yet paid.
  await createAccount(ctx, { link: { partnerId: setup.partnerId, partnerUid: 'u-1' } });
  await createAccount(ctx, { link: { partnerId: setup.partnerId, partnerUid: 'u-2' } });
  await achieve('u-1');
  await achieve('u-2');
  expect(await runPayoutBatch(ctx.database.db, ctx.clock)).toBe(2);
  ctx.clock.set('2026-11-22T05:00:00Z');
  await achieve('u-1');
});
afterAll(async () => {
  await ctx?.close();
});

describe('GET /admin/v1/reports/daily', () => {
  it('counts completions, rewards and payouts per UTC day, zero days included', async () => {
    const response = await ctx.admin('GET', '/admin/v1/reports/daily?days=4', undefined, viewer);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json<{ from: string; to: string; days: Array<Record<string, unknown>> }>();
    expect(body.from).toBe('2026-11-19');
    expect(body.to).toBe('2026-11-22');
    expect(body.days).toEqual([
      { day: '2026-11-19', completions: 0, rewardsGranted: 0, rewardsRefused: 0, payouts: [] },
      {
        day: '2026-11-20',
        completions: 2,
        rewardsGranted: 2,
        rewardsRefused: 0,
        payouts: [{ assetId: expect.any(String), symbol: 'PNT', decimals: 2, amount: '2.5', count: 2 }],
      },
      { day: '2026-11-21', completions: 0, rewardsGranted: 0, rewardsRefused: 0, payouts: [] },
      { day: '2026-11-22', completions: 1, rewardsGranted: 1, rewardsRefused: 0, payouts: [] },
    ]);
  });

  it('filters by partner and refuses bad windows', async () => {
    const other = await setupMission(ctx, { missionKey: 'other' });
    const response = await ctx.admin('GET', `/admin/v1/reports/daily?days=3&partnerId=${other.partnerId}`);
    expect(response.json<{ days: Array<{ completions: number }> }>().days.map((d) => d.completions)).toEqual([
      0, 0, 0,
    ]);
    for (const days of ['0', '367', 'x']) {
      const bad = await ctx.admin('GET', `/admin/v1/reports/daily?days=${days}`);
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toMatchObject({ code: 3000 });
    }
  });
});

describe('GET /admin/v1/budgets/{id}/history', () => {
  it('lists movements per day with running totals in whole units', async () => {
    const response = await ctx.admin('GET', `/admin/v1/budgets/${budgetId}/history`, undefined, viewer);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({
      items: [
        {
          day: '2026-11-20',
          reserved: '2.5',
          released: '0',
          paid: '2.5',
          heldToDate: '0',
          paidToDate: '2.5',
        },
        {
          day: '2026-11-22',
          reserved: '1.25',
          released: '0',
          paid: '0',
          heldToDate: '1.25',
          paidToDate: '2.5',
        },
      ],
    });
  });

  it('answers 1902 for an unknown budget', async () => {
    const response = await ctx.admin('GET', '/admin/v1/budgets/bud_nope/history');
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ code: 1902 });
  });
});

describe('GET /admin/v1/promotions/{id}/rewards', () => {
  it("lists the promotion's mission and group rewards", async () => {
    await ctx.admin('PUT', `/admin/v1/mission-groups/${setup.groupId}/reward`, {
      type: 'FIXED',
      budgetId,
      amount: '3',
    });
    const response = await ctx.admin(
      'GET',
      `/admin/v1/promotions/${setup.promotionId}/rewards`,
      undefined,
      viewer,
    );
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json<{ items: unknown[] }>().items).toEqual([
      {
        missionId: setup.missionId,
        missionGroupId: null,
        type: 'FIXED',
        budgetId,
        budgetName: 'Daily points',
        amount: '1.25',
        assetSymbol: 'PNT',
        decimals: 2,
      },
      {
        missionId: null,
        missionGroupId: setup.groupId,
        type: 'FIXED',
        budgetId,
        budgetName: 'Daily points',
        amount: '3',
        assetSymbol: 'PNT',
        decimals: 2,
      },
    ]);
  });

  it('answers 2101 for an unknown promotion', async () => {
    const response = await ctx.admin('GET', '/admin/v1/promotions/prm_nope/rewards');
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ code: 2101 });
  });
});
