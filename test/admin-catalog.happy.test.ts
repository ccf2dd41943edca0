import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partnerCall, setupMission, startTestApp } from './harness.ts';
import type { MissionSetup, TestContext } from './harness.ts';

let ctx: TestContext;
let setup: MissionSetup;
beforeAll(async () => {
  ctx = await startTestApp();
  setup = await setupMission(ctx);
});
afterAll(() => ctx.close());

describe('catalog: promotions, groups, missions', () => {
  it('lists and filters promotions, gets one, and renames groups and missions', async () => {
    const inactive = await ctx.admin('POST', '/admin/v1/promotions', {
      partnerId: setup.partnerId,
      type: 'DAILY_CHECK',
      title: 'Check-in',
      timezone: 'UTC',
      startAt: '2026-01-01T00:00:00Z',
    });
    expect(inactive.statusCode).toBe(201);
    expect(inactive.json()).toMatchObject({ status: 'INACTIVE', activatedAt: null });

    const active = await ctx.admin('GET', `/admin/v1/promotions?partnerId=${setup.partnerId}&status=ACTIVE`);
    expect(active.json().items.map((p: { id: string }) => p.id)).toEqual([setup.promotionId]);
    const one = await ctx.admin('GET', `/admin/v1/promotions/${setup.promotionId}`);
    expect(one.json()).toMatchObject({ id: setup.promotionId, status: 'ACTIVE', timezone: 'Asia/Seoul' });

    const group = await ctx.admin('PATCH', `/admin/v1/mission-groups/${setup.groupId}`, { title: 'Renamed' });
    expect(group.json()).toMatchObject({ title: 'Renamed', promotionId: setup.promotionId });
    const groups = await ctx.admin('GET', `/admin/v1/promotions/${setup.promotionId}/mission-groups`);
    expect(groups.json().items).toHaveLength(1);

    const mission = await ctx.admin('PATCH', `/admin/v1/missions/${setup.missionId}`, {
      title: 'New title',
      target: 5,
    });
    expect(mission.json()).toMatchObject({ title: 'New title', target: 5, missionKey: setup.missionKey });
    const missions = await ctx.admin('GET', `/admin/v1/mission-groups/${setup.groupId}/missions`);
    expect(missions.json().items.map((m: { id: string }) => m.id)).toEqual([setup.missionId]);
  });

  it('changes every field before activation; after it only title, endAt and status', async () => {
    const created = (
      await ctx.admin('POST', '/admin/v1/promotions', {
        partnerId: setup.partnerId,
        type: 'COMPOSITE',
        title: 'Draft',
        timezone: 'UTC',
        startAt: '2026-02-01T00:00:00Z',
      })
    ).json();
    const before = await ctx.admin('PATCH', `/admin/v1/promotions/${created.id}`, {
      type: 'DAILY_CHECK',
      timezone: 'Asia/Tokyo',
      startAt: '2026-03-01T00:00:00Z',
    });
    expect(before.statusCode).toBe(200);
    expect(before.json()).toMatchObject({
      type: 'DAILY_CHECK',
      timezone: 'Asia/Tokyo',
      startAt: '2026-03-01T00:00:00.000Z',
    });

    const activated = await ctx.admin('PATCH', `/admin/v1/promotions/${created.id}`, { status: 'ACTIVE' });
    expect(activated.json().activatedAt).toBe(ctx.clock.now().toISOString());

    for (const change of [
      { type: 'COMPOSITE' },
      { timezone: 'UTC' },
      { startAt: '2026-04-01T00:00:00Z' },
      { partnerId: 'ptn_other' },
    ]) {
      const refused = await ctx.admin('PATCH', `/admin/v1/promotions/${created.id}`, change);
      expect(refused.statusCode, JSON.stringify(change)).toBe(409);
      expect(refused.json()).toMatchObject({
        code: 2102,
        name: 'IMMUTABLE_PROMOTION_FIELD',
        field: Object.keys(change)[0],
      });
    }
    // The same values are not changes; deactivating keeps the fields frozen.
    const same = await ctx.admin('PATCH', `/admin/v1/promotions/${created.id}`, {
      type: 'DAILY_CHECK',
      startAt: '2026-03-01T00:00:00.000Z',
      title: 'Live',
      status: 'INACTIVE',
    });
    expect(same.statusCode).toBe(200);
    const frozen = await ctx.admin('PATCH', `/admin/v1/promotions/${created.id}`, { timezone: 'UTC' });
    expect(frozen.json().code).toBe(2102);
  });

  it('keeps metadata from earlier reports when a later report has none', async () => {
    const report = (body: object) =>
      partnerCall(ctx, setup, {
        method: 'POST',
        url: '/v1/achieve',
        body: { partnerUid: 'meta', missionKey: setup.missionKey, ...body },
      });
    expect((await report({ completed: false, metadata: { target: 9, current: 4 } })).statusCode).toBe(200);
    expect((await report({ completed: false })).statusCode).toBe(200);
    const items = (await ctx.admin('GET', `/admin/v1/partners/${setup.partnerId}/users/meta/progress`)).json()
      .items;
    expect(items[0]).toMatchObject({ target: 9, current: 4, completed: false, reportCount: 2 });
  });
});
