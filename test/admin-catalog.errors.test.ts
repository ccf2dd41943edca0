import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, partnerCall, setupMission, startTestApp } from './harness.ts';
import type { MissionSetup, TestContext } from './harness.ts';

let ctx: TestContext;
let setup: MissionSetup;
beforeAll(async () => {
  ctx = await startTestApp();
  setup = await setupMission(ctx);
});
afterAll(() => ctx.close());

const expectError = (response: { statusCode: number; json: () => unknown }, status: number, code: number) => {
  expect(response.statusCode).toBe(status);
  expect(response.json()).toMatchObject({ code });
};

describe('catalog errors', () => {
  it('unknown ids answer with the spec codes', async () => {
    expectError(await ctx.admin('GET', '/admin/v1/promotions/prm_nope'), 404, 2101);
    expectError(await ctx.admin('PATCH', '/admin/v1/promotions/prm_nope', { title: 'x' }), 404, 2101);
    expectError(
      await ctx.admin('POST', '/admin/v1/promotions/prm_nope/mission-groups', { title: 'x' }),
      404,
      2101,
    );
    expectError(await ctx.admin('GET', '/admin/v1/mission-groups/grp_nope'), 404, 1101);
    expectError(
      await ctx.admin('POST', '/admin/v1/mission-groups/grp_nope/missions', {
        missionKey: 'k',
        title: 't',
        recurrence: 'DAILY',
      }),
      404,
      1101,
    );
    expectError(await ctx.admin('GET', '/admin/v1/missions/msn_nope'), 404, 1201);
    expectError(await ctx.admin('PATCH', '/admin/v1/missions/msn_nope', { title: 'x' }), 404, 1201);
    expectError(
      await ctx.admin('POST', '/admin/v1/promotions', {
        partnerId: 'ptn_nope',
        type: 'COMPOSITE',
        title: 't',
        timezone: 'UTC',
        startAt: '2026-01-01T00:00:00Z',
      }),
      404,
      3102,
    );
  });

  it('refuses a duplicate mission key for the same partner, not for another partner', async () => {
    const dup = await ctx.admin('POST', `/admin/v1/mission-groups/${setup.groupId}/missions`, {
      missionKey: setup.missionKey,
      title: 'again',
      recurrence: 'WEEKLY',
    });
    expectError(dup, 409, 3300);
    const other = await setupMission(ctx, { missionKey: setup.missionKey });
    expect(other.missionKey).toBe(setup.missionKey);
  });

  it('refuses bad time zones and windows', async () => {
    const base = {
      partnerId: setup.partnerId,
      type: 'COMPOSITE',
      title: 't',
      startAt: '2026-01-01T00:00:00Z',
    };
    expectError(
      await ctx.admin('POST', '/admin/v1/promotions', { ...base, timezone: 'Mars/Base' }),
      400,
      3304,
    );
    expectError(
      await ctx.admin('POST', '/admin/v1/promotions', {
        ...base,
        timezone: 'UTC',
        endAt: '2025-12-31T00:00:00Z',
      }),
      400,
      3000,
    );
  });

  it('achieve refuses an INACTIVE promotion (3301) and a report after its end (3302), writing nothing', async () => {
    const report = () =>
      partnerCall(ctx, setup, {
        method: 'POST',
        url: '/v1/achieve',
        body: { partnerUid: 'late', missionKey: setup.missionKey, completed: true },
      });
    await ctx.admin('PATCH', `/admin/v1/promotions/${setup.promotionId}`, { status: 'INACTIVE' });
    expectError(await report(), 409, 3301);
    await ctx.admin('PATCH', `/admin/v1/promotions/${setup.promotionId}`, {
      status: 'ACTIVE',
      endAt: '2026-11-22T03:00:00Z',
    });
    expectError(await report(), 409, 3302);
    const items = (await ctx.admin('GET', `/admin/v1/partners/${setup.partnerId}/users/late/progress`)).json()
      .items;
    expect(items).toEqual([]);
  });

  it('the last OWNER cannot be revoked; another OWNER makes it possible', async () => {
    const list = (await ctx.admin('GET', '/admin/v1/admin-credentials')).json().items;
    const owner = list.find((c: { role: string }) => c.role === 'OWNER');
    expectError(await ctx.admin('DELETE', `/admin/v1/admin-credentials/${owner.id}`), 409, 3202);
    const second = (
      await ctx.admin('POST', '/admin/v1/admin-credentials', { name: 'second', role: 'OWNER' })
    ).json();
    expect((await ctx.admin('DELETE', `/admin/v1/admin-credentials/${owner.id}`)).statusCode).toBe(204);
    expectError(await ctx.admin('GET', '/admin/v1/partners', undefined, ADMIN_TOKEN), 401, 3200);
    expect((await ctx.admin('GET', '/admin/v1/partners', undefined, second.secret)).statusCode).toBe(200);
  });
});
