// The end user's mission view and DAILY_CHECK streaks, through the partner API and /v1/me.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, partnerCall, sessionCookie, setupMission, startTestApp } from './harness.ts';
import type { MissionSetup, TestContext } from './harness.ts';

let ctx: TestContext;
let setup: MissionSetup;
let accountId: string;
let checkPromotion: string;
let fixedBudget: string;

beforeAll(async () => {
  ctx = await startTestApp({ now: '2026-11-20T03:00:00Z' });
  setup = await setupMission(ctx, { missionKey: 'play-3', recurrence: 'DAILY', target: 3 });
  accountId = await createAccount(ctx, { link: { partnerId: setup.partnerId, partnerUid: 'me-user' } });
  const assetId = (
    await ctx.admin('POST', '/admin/v1/reward-assets', { symbol: 'PNT', name: 'Points', decimals: 1 })
  ).json().id;
  fixedBudget = (
    await ctx.admin('POST', '/admin/v1/budgets', { type: 'FIXED', assetId, name: 'pts', total: '100' })
  ).json().id;
  await ctx.admin('PUT', `/admin/v1/missions/${setup.missionId}/reward`, {
    type: 'FIXED',
    budgetId: fixedBudget,
    amount: '2.5',
  });
  checkPromotion = (
    await ctx.admin('POST', '/admin/v1/promotions', {
      partnerId: setup.partnerId,
      type: 'DAILY_CHECK',
      title: 'Check in daily',
      timezone: 'Asia/Seoul',
      startAt: '2026-01-01T00:00:00Z',
      status: 'ACTIVE',
    })
  ).json().id;
  const group = (
    await ctx.admin('POST', `/admin/v1/promotions/${checkPromotion}/mission-groups`, { title: 'Check-in' })
  ).json().id;
  await ctx.admin('POST', `/admin/v1/mission-groups/${group}/missions`, {
    missionKey: 'check-in',
    title: 'Check in',
    recurrence: 'DAILY',
  });
});
afterAll(async () => {
  await ctx?.close();
});

const checkIn = () =>
  partnerCall(ctx, setup, {
    method: 'POST',
    url: '/v1/achieve',
    body: { partnerUid: 'me-user', missionKey: 'check-in', completed: true },
  });
const me = async () =>
  (
    await ctx.app.inject({
      method: 'GET',
      url: '/v1/me/missions',
      headers: { cookie: await sessionCookie(ctx, accountId) },
    })
  ).json();

describe('/v1/me/missions', () => {
  it('shows each mission of the linked partners with its gauge and reward', async () => {
    await partnerCall(ctx, setup, {
      method: 'POST',
      url: '/v1/achieve',
      body: {
        partnerUid: 'me-user',
        missionKey: 'play-3',
        completed: false,
        metadata: { target: 3, current: 2 },
      },
    });
    // A partner the user is not linked to stays invisible.
    await setupMission(ctx, { missionKey: 'elsewhere' });
    const view = await me();
    expect(view.items.map((m: { missionKey: string }) => m.missionKey).sort()).toEqual([
      'check-in',
      'play-3',
    ]);
    expect(view.items.find((m: { missionKey: string }) => m.missionKey === 'play-3')).toMatchObject({
      target: 3,
      current: 2,
      completed: false,
      periodKey: '2026-11-20',
      recurrence: 'DAILY',
      promotionType: 'COMPOSITE',
      reward: { type: 'FIXED', amount: '2.5', assetSymbol: 'PNT' },
    });
    const unauthenticated = await ctx.app.inject({ method: 'GET', url: '/v1/me/missions' });
    expect(unauthenticated.statusCode).toBe(401);
  });

  it('counts check-in streaks and pays a streak reward once reached', async () => {
    const set = await ctx.admin('PUT', `/admin/v1/promotions/${checkPromotion}/streak-rewards`, {
      items: [{ days: 3, budgetId: fixedBudget, amount: '5' }],
    });
    expect(set.statusCode, set.body).toBe(200);
    for (let day = 0; day < 3; day++) {
      expect((await checkIn()).statusCode).toBe(200);
      expect((await checkIn()).statusCode).toBe(200); // twice a day counts once
      if (day < 2) ctx.clock.advance(24 * 3600 * 1000);
    }
    expect((await me()).streaks).toEqual([
      {
        promotionId: checkPromotion,
        promotionTitle: 'Check in daily',
        current: 3,
        best: 3,
        lastCheckDate: '2026-11-22',
      },
    ]);
    const streakClaims = (await ctx.admin('GET', '/admin/v1/claims?partnerUid=me-user'))
      .json()
      .items.filter((c: { source: string }) => c.source === 'STREAK');
    expect(streakClaims).toHaveLength(1);
    expect(streakClaims[0]).toMatchObject({ amount: '5', status: 'REQUESTED' });

    // A day missed: the streak shows broken, and restarts at 1 on the next check-in.
    ctx.clock.advance(2 * 24 * 3600 * 1000);
    expect((await me()).streaks[0]).toMatchObject({ current: 0, best: 3 });
    await checkIn();
    expect((await me()).streaks[0]).toMatchObject({ current: 1, best: 3, lastCheckDate: '2026-11-24' });
  });

  it('streak rewards belong to DAILY_CHECK promotions and FIXED budgets', async () => {
    const composite = await ctx.admin('PUT', `/admin/v1/promotions/${setup.promotionId}/streak-rewards`, {
      items: [{ days: 2, budgetId: fixedBudget, amount: '1' }],
    });
    expect(composite.statusCode).toBe(400);
    const twice = await ctx.admin('PUT', `/admin/v1/promotions/${checkPromotion}/streak-rewards`, {
      items: [
        { days: 2, budgetId: fixedBudget, amount: '1' },
        { days: 2, budgetId: fixedBudget, amount: '2' },
      ],
    });
    expect(twice.statusCode).toBe(400);
    expect(
      (await ctx.admin('GET', `/admin/v1/promotions/${checkPromotion}/streak-rewards`)).json().items,
    ).toEqual([{ days: 3, budgetId: fixedBudget, amount: '5' }]);
  });
});

describe('/v1/me/tickets', () => {
  it('filters by TicketFilter: NOT_RECEIVED, then RECEIVED, then DRAWN', async () => {
    const assetId = (
      await ctx.admin('POST', '/admin/v1/reward-assets', { symbol: 'GEM', name: 'Gems', decimals: 0 })
    ).json().id;
    const budgetId = (
      await ctx.admin('POST', '/admin/v1/budgets', { type: 'LUCKY_DRAW', assetId, name: 'gems', total: '10' })
    ).json().id;
    const mission = (
      await ctx.admin('POST', `/admin/v1/mission-groups/${setup.groupId}/missions`, {
        missionKey: 'lucky-day',
        title: 'Lucky day',
        recurrence: 'DAILY',
      })
    ).json().id;
    await ctx.admin('PUT', `/admin/v1/missions/${mission}/reward`, { type: 'LUCKY_DRAW', budgetId });
    const tickets = async (filter: string) =>
      (
        await ctx.app.inject({
          method: 'GET',
          url: `/v1/me/tickets?filter=${filter}`,
          headers: { cookie: await sessionCookie(ctx, accountId) },
        })
      ).json().items;

    expect(await tickets('NOT_RECEIVED')).toEqual([
      expect.objectContaining({ id: null, missionId: mission, status: 'NOT_RECEIVED' }),
    ]);
    expect(await tickets('RECEIVED')).toEqual([]);
    const adminView = await ctx.admin(
      'GET',
      `/admin/v1/tickets?filter=NOT_RECEIVED&partnerId=${setup.partnerId}&partnerUid=me-user`,
    );
    expect(adminView.json().items).toEqual([
      expect.objectContaining({ missionId: mission, status: 'NOT_RECEIVED', partnerUid: 'me-user' }),
    ]);
    expect((await ctx.admin('GET', '/admin/v1/tickets?filter=NOT_RECEIVED')).statusCode).toBe(400);
    await partnerCall(ctx, setup, {
      method: 'POST',
      url: '/v1/achieve',
      body: { partnerUid: 'me-user', missionKey: 'lucky-day', completed: true },
    });
    expect(await tickets('NOT_RECEIVED')).toEqual([]);
    expect(await tickets('RECEIVED')).toEqual([
      expect.objectContaining({ missionId: mission, status: 'RECEIVED', drawId: null }),
    ]);

    const draw = (
      await ctx.admin('POST', '/admin/v1/draws', {
        budgetId,
        title: 'd',
        prizeAmount: '1',
        winnersCount: 1,
        scheduledAt: ctx.clock.now().toISOString(),
      })
    ).json();
    await ctx.admin('POST', `/admin/v1/draws/${draw.id}/run`);
    expect(await tickets('DRAWN')).toEqual([
      expect.objectContaining({ status: 'DRAWN', drawId: draw.id, won: true }),
    ]);
    const bad = await ctx.app.inject({
      method: 'GET',
      url: '/v1/me/tickets?filter=LOST',
      headers: { cookie: await sessionCookie(ctx, accountId) },
    });
    expect(bad.statusCode).toBe(400);
  });
});
