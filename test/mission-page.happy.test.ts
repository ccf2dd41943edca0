// GET /v1/me/missions: the signed-in user's missions of the linked partners' active promotions, with
// the current period's gauge, completion, reward, and daily check-in streaks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, partnerCall, sessionCookie, setupMission, startTestApp } from './harness.ts';
import type { MissionSetup, TestContext } from './harness.ts';

let ctx: TestContext;
let setup: MissionSetup;
let accountId: string;

interface MyMissions {
  items: Array<Record<string, unknown> & { missionKey: string }>;
  streaks: Array<Record<string, unknown>>;
}

async function myMissions(account = accountId): Promise<MyMissions> {
  const response = await ctx.app.inject({ method: 'GET', url: '/v1/me/missions', headers: { cookie: sessionCookie(ctx, account) } });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<MyMissions>();
}

function achieve(body: Record<string, unknown>, partner: Pick<MissionSetup, 'partnerId' | 'apiKey'> = setup) {
  return partnerCall(ctx, partner, { method: 'POST', url: '/v1/achieve', body: { partnerUid: 'u-1', ...body } });
}

beforeAll(async () => {
  // 03:00 UTC is noon in Seoul.
  ctx = await startTestApp({ now: '2026-11-22T03:00:00Z' });
  setup = await setupMission(ctx, { missionKey: 'play-3', recurrence: 'DAILY', target: 3 });
  accountId = await createAccount(ctx, { link: { partnerId: setup.partnerId, partnerUid: 'u-1' } });
});
afterAll(async () => {
  await ctx?.close();
});

describe('GET /v1/me/missions', () => {
  it('needs a session', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: '/v1/me/missions' });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ code: 3210 });
  });

  it('shows a mission not started yet against its own target, then the gauge as reported, then completed', async () => {
    let mission = (await myMissions()).items.find((m) => m.missionKey === 'play-3');
    expect(mission).toMatchObject({
      partnerId: setup.partnerId,
      partnerName: 'Test partner',
      promotionId: setup.promotionId,
      promotionTitle: 'Test promotion',
      promotionType: 'COMPOSITE',
      missionGroupId: setup.groupId,
      missionId: setup.missionId,
      title: 'Log in',
      recurrence: 'DAILY',
      periodKey: '2026-11-22',
      target: 3,
      current: null,
      completed: false,
      completedAt: null,
      reward: null,
    });

    expect((await achieve({ missionKey: 'play-3', completed: false, metadata: { target: 3, current: 2 } })).statusCode).toBe(200);
    mission = (await myMissions()).items.find((m) => m.missionKey === 'play-3');
    expect(mission).toMatchObject({ target: 3, current: 2, completed: false });

    expect((await achieve({ missionKey: 'play-3', completed: true, metadata: { target: 3, current: 3 } })).statusCode).toBe(200);
    mission = (await myMissions()).items.find((m) => m.missionKey === 'play-3');
    expect(mission).toMatchObject({ current: 3, completed: true, completedAt: '2026-11-22T03:00:00.000Z' });

    // The next local day is a new period: the gauge starts again.
    ctx.clock.set('2026-11-22T15:30:00Z'); // 00:30 on the 23rd in Seoul
    mission = (await myMissions()).items.find((m) => m.missionKey === 'play-3');
    expect(mission).toMatchObject({ periodKey: '2026-11-23', current: null, completed: false });
    ctx.clock.set('2026-11-22T03:00:00Z');
  });

  it("shows the mission's reward with the asset's amount in whole units", async () => {
    const asset = (await ctx.admin('POST', '/admin/v1/reward-assets', { symbol: 'PNT', name: 'Points', decimals: 2 })).json<{ id: string }>();
    const budget = (await ctx.admin('POST', '/admin/v1/budgets', { type: 'FIXED', assetId: asset.id, name: 'B', total: '100' })).json<{ id: string }>();
    expect((await ctx.admin('PUT', `/admin/v1/missions/${setup.missionId}/reward`, { type: 'FIXED', budgetId: budget.id, amount: '2.5' })).statusCode).toBe(200);
    const mission = (await myMissions()).items.find((m) => m.missionKey === 'play-3');
    expect(mission?.reward).toEqual({ type: 'FIXED', amount: '2.5', assetSymbol: 'PNT' });
  });

  it('leaves out INACTIVE and ended promotions, and partners the account is not linked to', async () => {
    const other = await setupMission(ctx, { missionKey: 'elsewhere' });
    expect((await myMissions()).items.map((m) => m.missionKey)).not.toContain('elsewhere');
    await ctx.admin('PATCH', `/admin/v1/promotions/${setup.promotionId}`, { endAt: '2026-11-01T00:00:00Z' });
    expect((await myMissions()).items).toEqual([]);
    await ctx.admin('PATCH', `/admin/v1/promotions/${setup.promotionId}`, { endAt: null, status: 'INACTIVE' });
    expect((await myMissions()).items).toEqual([]);
    await ctx.admin('PATCH', `/admin/v1/promotions/${setup.promotionId}`, { status: 'ACTIVE' });
    expect((await myMissions()).items.map((m) => m.missionKey)).toEqual(['play-3']);
    // Linked to the second partner too: both partners' missions.
    await ctx.database.db.insertInto('user_mappings').values({ partner_id: other.partnerId, partner_uid: 'x-9', account_id: accountId, region: 'KR' }).execute();
    expect((await myMissions()).items.map((m) => m.missionKey).sort()).toEqual(['elsewhere', 'play-3']);
  });

  it('counts daily check-in streaks of DAILY_CHECK promotions in the promotion time zone', async () => {
    const promotion = (
      await ctx.admin('POST', '/admin/v1/promotions', {
        partnerId: setup.partnerId,
        type: 'DAILY_CHECK',
        title: 'Check in daily',
        timezone: 'Asia/Seoul',
        startAt: '2026-01-01T00:00:00Z',
        status: 'ACTIVE',
      })
    ).json<{ id: string }>();
    const group = (await ctx.admin('POST', `/admin/v1/promotions/${promotion.id}/mission-groups`, { title: 'Daily' })).json<{ id: string }>();
    await ctx.admin('POST', `/admin/v1/mission-groups/${group.id}/missions`, { missionKey: 'check-in', title: 'Check in', recurrence: 'DAILY' });

    const streak = async () => (await myMissions()).streaks.find((s) => s.promotionId === promotion.id);
    expect(await streak()).toEqual({ promotionId: promotion.id, promotionTitle: 'Check in daily', current: 0, best: 0, lastCheckDate: null });

    // Check in on the 20th, 21st and 22nd (Seoul), skipping nothing.
    for (const at of ['2026-11-20T01:00:00Z', '2026-11-21T14:59:00Z', '2026-11-22T03:00:00Z']) {
      ctx.clock.set(at);
      expect((await achieve({ missionKey: 'check-in', completed: true })).statusCode).toBe(200);
    }
    expect(await streak()).toMatchObject({ current: 3, best: 3, lastCheckDate: '2026-11-22' });
    // The next day, not checked in yet: the streak is still alive.
    ctx.clock.set('2026-11-23T03:00:00Z');
    expect(await streak()).toMatchObject({ current: 3, best: 3 });
    // A day missed: the streak is broken, the best remains.
    ctx.clock.set('2026-11-24T16:00:00Z'); // the 25th in Seoul
    expect(await streak()).toMatchObject({ current: 0, best: 3 });
    ctx.clock.set('2026-11-22T03:00:00Z');
  });
});
