// The end user's reward API under /v1/me (docs/plans/me-api.md): missions with gauges and rewards,
// tickets by TicketFilter, claims by status, balances; a session is required.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, partnerCall, sessionCookie, setupMission, startTestApp } from './harness.ts';
import type { MissionSetup, TestContext } from './harness.ts';
import { complete, createAsset, createBudget, ok, refused, workerCycle } from './rewards-helpers.ts';

let ctx: TestContext;
let setup: MissionSetup;
let accountId: string;
let cookie: string;
let assetId: string;
let luckyMissionId: string;

beforeAll(async () => {
  ctx = await startTestApp({ now: '2026-11-22T03:00:00Z' });
  setup = await setupMission(ctx, { missionKey: 'play-games', recurrence: 'DAILY', target: 3 });
  assetId = await createAsset(ctx, { symbol: 'PNT', name: 'Points', decimals: 2 });
  const fixed = await createBudget(ctx, { assetId, total: '100' });
  const lucky = await createBudget(ctx, { assetId, total: '100', type: 'LUCKY_DRAW' });
  ok(await ctx.admin('PUT', `/admin/v1/missions/${setup.missionId}/reward`, { type: 'FIXED', budgetId: fixed, amount: '12.5' }));
  luckyMissionId = ok<{ id: string }>(
    await ctx.admin('POST', `/admin/v1/mission-groups/${setup.groupId}/missions`, { missionKey: 'share', title: 'Share', recurrence: 'ONE_TIME' }),
    201,
  ).id;
  ok(await ctx.admin('PUT', `/admin/v1/missions/${luckyMissionId}/reward`, { type: 'LUCKY_DRAW', budgetId: lucky }));
  ok(await ctx.admin('POST', `/admin/v1/mission-groups/${setup.groupId}/missions`, { missionKey: 'plain', title: 'Plain', recurrence: 'WEEKLY' }), 201);
  accountId = await createAccount(ctx, { displayName: 'Mina', link: { partnerId: setup.partnerId, partnerUid: 'mina' } });
  cookie = sessionCookie(ctx, accountId);
});
afterAll(async () => {
  await ctx?.close();
});

const me = (url: string) => ctx.app.inject({ method: 'GET', url, headers: { cookie } });

describe('/v1/me rewards', () => {
  it('every route needs the session', async () => {
    for (const url of ['/v1/me/missions', '/v1/me/tickets', '/v1/me/claims', '/v1/me/balances']) {
      refused(await ctx.app.inject({ method: 'GET', url }), 401, 3210);
    }
    refused(await me('/v1/me/tickets?filter=LOST'), 400, 3000);
    refused(await me('/v1/me/claims?status=PAID'), 400, 3000);
  });

  it('missions show the current period, the gauge, completion and the reward', async () => {
    await partnerCall(ctx, setup, { method: 'POST', url: '/v1/achieve', body: { partnerUid: 'mina', missionKey: 'play-games', completed: false, metadata: { current: 2 } } });
    const body = ok<{ items: Array<Record<string, unknown>>; streaks: unknown[] }>(await me('/v1/me/missions'));
    expect(body.streaks).toEqual([]);
    // In creation order; missions created at the same instant by key.
    expect(body.items.map((m) => m.missionKey)).toEqual(['plain', 'play-games', 'share']);
    const byKey = Object.fromEntries(body.items.map((m) => [m.missionKey, m]));
    expect(byKey['play-games']).toEqual(
      {
        partnerId: setup.partnerId,
        partnerName: 'Test partner',
        promotionId: setup.promotionId,
        promotionTitle: 'Test promotion',
        promotionType: 'COMPOSITE',
        missionGroupId: setup.groupId,
        groupTitle: 'Group',
        missionId: setup.missionId,
        missionKey: 'play-games',
        title: 'Log in',
        recurrence: 'DAILY',
        periodKey: '2026-11-22',
        target: 3,
        current: 2,
        completed: false,
        completedAt: null,
        reward: { type: 'FIXED', amount: '12.5', assetSymbol: 'PNT' },
      },
    );
    expect(byKey.share).toMatchObject({ periodKey: 'ONCE', target: null, current: null, completed: false, reward: { type: 'LUCKY_DRAW', amount: null, assetSymbol: 'PNT' } });
    expect(byKey.plain).toMatchObject({ periodKey: 'W2026-11-16', reward: null });

    await partnerCall(ctx, setup, { method: 'POST', url: '/v1/achieve', body: { partnerUid: 'mina', missionKey: 'play-games', completed: true, metadata: { current: 3 } } });
    const after = ok<{ items: Array<Record<string, unknown>> }>(await me('/v1/me/missions'));
    expect(after.items.find((m) => m.missionKey === 'play-games')).toMatchObject({ completed: true, current: 3, completedAt: '2026-11-22T03:00:00.000Z' });

    // Another user's progress and other partners' missions are not shown; nor INACTIVE promotions.
    const other = await setupMission(ctx, { missionKey: 'elsewhere' });
    await complete(ctx, other, 'mina', 'elsewhere');
    ok(await ctx.admin('PATCH', `/admin/v1/promotions/${setup.promotionId}`, { status: 'INACTIVE' }));
    expect(ok<{ items: unknown[] }>(await me('/v1/me/missions')).items).toEqual([]);
    ok(await ctx.admin('PATCH', `/admin/v1/promotions/${setup.promotionId}`, { status: 'ACTIVE' }));
  });

  it('tickets by filter: NOT_RECEIVED before, RECEIVED after the completion', async () => {
    expect(ok<{ items: unknown[] }>(await me('/v1/me/tickets?filter=NOT_RECEIVED')).items).toEqual([
      { id: null, missionId: luckyMissionId, missionTitle: 'Share', status: 'NOT_RECEIVED', drawId: null, won: null, createdAt: null },
    ]);
    expect(ok<{ items: unknown[] }>(await me('/v1/me/tickets?filter=RECEIVED')).items).toEqual([]);
    expect((await complete(ctx, setup, 'mina', 'share')).statusCode).toBe(200);
    expect(ok<{ items: unknown[] }>(await me('/v1/me/tickets?filter=NOT_RECEIVED')).items).toEqual([]);
    const received = ok<{ items: Array<{ id: string }> }>(await me('/v1/me/tickets?filter=RECEIVED')).items;
    expect(received).toEqual([
      { id: expect.stringMatching(/^tkt_/), missionId: luckyMissionId, missionTitle: 'Share', status: 'RECEIVED', drawId: null, won: null, createdAt: '2026-11-22T03:00:00.000Z' },
    ]);
    expect(ok<{ items: unknown[] }>(await me('/v1/me/tickets')).items).toEqual(received);
    expect(ok<{ items: unknown[] }>(await me('/v1/me/tickets?filter=DRAWN')).items).toEqual([]);
  });

  it('claims by status and balances after the payout', async () => {
    const requested = ok<{ items: Array<Record<string, unknown>> }>(await me('/v1/me/claims?status=REQUESTED')).items;
    expect(requested).toEqual([
      {
        id: expect.stringMatching(/^clm_/),
        status: 'REQUESTED',
        amount: '12.5',
        assetSymbol: 'PNT',
        decimals: 2,
        source: 'MISSION',
        createdAt: '2026-11-22T03:00:00.000Z',
        updatedAt: '2026-11-22T03:00:00.000Z',
      },
    ]);
    expect(ok<{ items: unknown[] }>(await me('/v1/me/balances')).items).toEqual([]);
    await workerCycle(ctx);
    expect(ok<{ items: unknown[] }>(await me('/v1/me/claims?status=REQUESTED')).items).toEqual([]);
    expect(ok<{ items: Array<{ status: string }> }>(await me('/v1/me/claims')).items.map((c) => c.status)).toEqual(['SUCCEEDED']);
    expect(ok(await me('/v1/me/balances'))).toEqual({ items: [{ assetId, symbol: 'PNT', name: 'Points', decimals: 2, balance: '12.5' }] });
  });

  it('an account with no linked partner user has nothing', async () => {
    const lonely = sessionCookie(ctx, await createAccount(ctx));
    for (const url of ['/v1/me/missions', '/v1/me/tickets?filter=NOT_RECEIVED', '/v1/me/claims', '/v1/me/balances']) {
      const body = ok<{ items: unknown[] }>(await ctx.app.inject({ method: 'GET', url, headers: { cookie: lonely } }));
      expect(body.items).toEqual([]);
    }
  });
});
