import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partnerCall, setupMission, startTestApp } from './harness.ts';
import type { MissionSetup, TestContext } from './harness.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await startTestApp();
});
afterAll(() => ctx.close());

// 2026-11-23 is a Monday. Local midnights (Monday) and first-of-month midnights in UTC:
const ZONES = {
  'Asia/Seoul': {
    monday: '2026-11-22T15:00:00Z',
    tuesday: '2026-11-23T15:00:00Z',
    month: '2026-11-30T15:00:00Z',
  },
  'America/Los_Angeles': {
    monday: '2026-11-23T08:00:00Z',
    tuesday: '2026-11-24T08:00:00Z',
    month: '2026-12-01T08:00:00Z',
  },
} as const;

const before = (iso: string) => new Date(Date.parse(iso) - 1000).toISOString();

async function reportAt(setup: MissionSetup, uid: string, at: string) {
  ctx.clock.set(at);
  const response = await partnerCall(ctx, setup, {
    method: 'POST',
    url: '/v1/achieve',
    body: { partnerUid: uid, missionKey: setup.missionKey, completed: false },
  });
  expect(response.statusCode).toBe(200);
}

async function periodKeys(setup: MissionSetup, uid: string): Promise<string[]> {
  const items = (await ctx.admin('GET', `/admin/v1/partners/${setup.partnerId}/users/${uid}/progress`)).json()
    .items as Array<{ periodKey: string }>;
  return items.map((i) => i.periodKey).sort();
}

for (const [timezone, b] of Object.entries(ZONES)) {
  describe(`periods in ${timezone}`, () => {
    it('DAILY splits at local midnight', async () => {
      const s = await setupMission(ctx, { recurrence: 'DAILY', timezone, missionKey: 'daily' });
      await reportAt(s, 'd', before(b.monday));
      await reportAt(s, 'd', b.monday);
      expect(await periodKeys(s, 'd')).toEqual(['2026-11-22', '2026-11-23']);
    });

    it('WEEKLY splits at Monday 00:00 local and not at Tuesday 00:00', async () => {
      const s = await setupMission(ctx, { recurrence: 'WEEKLY', timezone, missionKey: 'weekly' });
      await reportAt(s, 'w', before(b.monday));
      await reportAt(s, 'w', b.monday);
      await reportAt(s, 'w', before(b.tuesday));
      await reportAt(s, 'w', b.tuesday);
      const keys = await periodKeys(s, 'w');
      expect(keys).toHaveLength(2);
      expect(keys).toContain('W2026-11-23');
    });

    it('MONTHLY splits at the 1st 00:00 local and not at a Monday', async () => {
      const s = await setupMission(ctx, { recurrence: 'MONTHLY', timezone, missionKey: 'monthly' });
      await reportAt(s, 'm', before(b.monday));
      await reportAt(s, 'm', b.monday);
      await reportAt(s, 'm', before(b.month));
      await reportAt(s, 'm', b.month);
      expect(await periodKeys(s, 'm')).toEqual(['2026-11', '2026-12']);
    });

    it('ONE_TIME never splits', async () => {
      const s = await setupMission(ctx, { recurrence: 'ONE_TIME', timezone, missionKey: 'once' });
      for (const at of [before(b.monday), b.monday, before(b.month), b.month]) await reportAt(s, 'o', at);
      expect(await periodKeys(s, 'o')).toHaveLength(1);
    });
  });
}
