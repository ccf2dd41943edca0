// DAILY_CHECK promotions: each local day with a completed check-in mission extends the user's
// streak; a missed day starts it again; streak rewards pay when a streak reaches their length.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, partnerCall, sessionCookie, setupMission, startTestApp } from './harness.ts';
import type { MissionSetup, TestContext } from './harness.ts';
import { createAsset, createBudget, expectBudgetsBalanced, ok } from './rewards-helpers.ts';

let ctx: TestContext;
let setup: MissionSetup;
let promotionId: string;
let budgetId: string;
let accountId: string;

beforeAll(async () => {
  // 03:00Z is 12:00 in Seoul.
  ctx = await startTestApp({ now: '2026-11-20T03:00:00Z' });
  setup = await setupMission(ctx, { missionKey: 'unused', recurrence: 'DAILY' });
  promotionId = ok<{ id: string }>(
    await ctx.admin('POST', '/admin/v1/promotions', {
      partnerId: setup.partnerId,
      type: 'DAILY_CHECK',
      title: 'Daily check-in',
      timezone: 'Asia/Seoul',
      startAt: '2026-01-01T00:00:00Z',
      status: 'ACTIVE',
    }),
    201,
  ).id;
  const group = ok<{ id: string }>(await ctx.admin('POST', `/admin/v1/promotions/${promotionId}/mission-groups`, { title: 'Check-ins' }), 201).id;
  for (const missionKey of ['check-in', 'check-in-bonus']) {
    ok(await ctx.admin('POST', `/admin/v1/mission-groups/${group}/missions`, { missionKey, title: missionKey, recurrence: 'DAILY' }), 201);
  }
  const assetId = await createAsset(ctx);
  budgetId = await createBudget(ctx, { assetId, total: '100' });
  ok(await ctx.admin('PUT', `/admin/v1/promotions/${promotionId}/streak-rewards/2`, { budgetId, amount: '1' }));
  ok(await ctx.admin('PUT', `/admin/v1/promotions/${promotionId}/streak-rewards/3`, { budgetId, amount: '5' }));
  accountId = await createAccount(ctx, { link: { partnerId: setup.partnerId, partnerUid: 'streaker' } });
});
afterAll(async () => {
  await ctx?.close();
});

const checkIn = (missionKey = 'check-in', partnerUid = 'streaker') =>
  partnerCall(ctx, setup, { method: 'POST', url: '/v1/achieve', body: { partnerUid, missionKey, completed: true } });
const streak = async () => {
  const body = ok<{ streaks: Array<{ promotionId: string; current: number; best: number; lastCheckDate: string | null }> }>(
    await ctx.app.inject({ method: 'GET', url: '/v1/me/missions', headers: { cookie: sessionCookie(ctx, accountId) } }),
  );
  return body.streaks.find((s) => s.promotionId === promotionId);
};
const streakClaims = async () =>
  ok<{ items: Array<{ amount: string; periodKey: string; status: string }> }>(await ctx.admin('GET', `/admin/v1/claims?source=STREAK&partnerUid=streaker&partnerId=${setup.partnerId}`))
    .items.map((c) => `${c.periodKey}:${c.amount}`)
    .sort();
const nextDay = () => ctx.clock.advance(24 * 3600 * 1000);

describe('check-in streaks', () => {
  it('grow day by day, count a day once, restart after a gap, and pay streak rewards when reached', async () => {
    expect(await streak()).toEqual({ promotionId, promotionTitle: 'Daily check-in', current: 0, best: 0, lastCheckDate: null });

    expect((await checkIn()).statusCode).toBe(200); // 11-20
    expect((await checkIn('check-in-bonus')).statusCode).toBe(200); // same day: still 1
    expect(await streak()).toMatchObject({ current: 1, best: 1, lastCheckDate: '2026-11-20' });
    expect(await streakClaims()).toEqual([]);

    nextDay(); // 11-21
    await checkIn();
    expect(await streak()).toMatchObject({ current: 2, best: 2 });
    expect(await streakClaims()).toEqual(['2026-11-21:1']);

    nextDay(); // 11-22
    await checkIn('check-in-bonus');
    await checkIn();
    expect(await streak()).toMatchObject({ current: 3, best: 3, lastCheckDate: '2026-11-22' });
    expect(await streakClaims()).toEqual(['2026-11-21:1', '2026-11-22:5']);

    nextDay();
    nextDay(); // 11-24: 11-23 was missed; the streak as shown is broken
    expect(await streak()).toMatchObject({ current: 0, best: 3, lastCheckDate: '2026-11-22' });
    await checkIn();
    expect(await streak()).toMatchObject({ current: 1, best: 3, lastCheckDate: '2026-11-24' });

    nextDay(); // 11-25: a streak of 2 again pays again, for this day
    await checkIn();
    expect(await streakClaims()).toEqual(['2026-11-21:1', '2026-11-22:5', '2026-11-25:1']);
    const claims = ok<{ items: Array<{ status: string; source: string; promotionId: string }> }>(
      await ctx.admin('GET', `/admin/v1/claims?source=STREAK&budgetId=${budgetId}`),
    ).items;
    expect(claims.every((c) => c.status === 'REQUESTED' && c.promotionId === promotionId)).toBe(true);
    await expectBudgetsBalanced(ctx);
  });

  it('the day is the promotion\'s local day: 23:30 and 00:30 in Seoul are two days', async () => {
    ctx.clock.set('2026-12-01T14:30:00Z'); // 23:30 in Seoul, 12-01
    await checkIn('check-in', 'night-owl');
    ctx.clock.set('2026-12-01T15:30:00Z'); // 00:30 in Seoul, 12-02
    await checkIn('check-in', 'night-owl');
    const claims = ok<{ items: Array<{ periodKey: string }> }>(
      await ctx.admin('GET', `/admin/v1/claims?source=STREAK&partnerId=${setup.partnerId}&partnerUid=night-owl`),
    ).items;
    expect(claims.map((c) => c.periodKey)).toEqual(['2026-12-02']);
  });

  it('two check-in missions reported at once on one day advance the streak once', async () => {
    ctx.clock.set('2026-12-10T03:00:00Z');
    await Promise.all([checkIn('check-in', 'twin'), checkIn('check-in-bonus', 'twin')]);
    const row = await ctx.database.db
      .selectFrom('check_streaks')
      .select(['current', 'best'])
      .where('partner_uid', '=', 'twin')
      .where('promotion_id', '=', promotionId)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ current: 1, best: 1 });
  });
});
