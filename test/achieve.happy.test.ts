import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partnerCall, setupMission, startTestApp } from './harness.ts';
import type { MissionSetup, TestContext } from './harness.ts';

let ctx: TestContext;
let setup: MissionSetup;

beforeAll(async () => {
  ctx = await startTestApp();
  setup = await setupMission(ctx, { target: 10 });
});
afterAll(() => ctx.close());

const progress = async (partnerUid: string) =>
  (await ctx.admin('GET', `/admin/v1/partners/${setup.partnerId}/users/${partnerUid}/progress`)).json().items;

describe('POST /v1/achieve', () => {
  it('stores progress, answers 200 with an empty body, and keeps completed sticky', async () => {
    const report = (body: object) =>
      partnerCall(ctx, setup, {
        method: 'POST',
        url: '/v1/achieve',
        body: { partnerUid: 'u1', missionKey: setup.missionKey, ...body },
      });

    const first = await report({ completed: false, metadata: { target: 10, current: 3 } });
    expect(first.statusCode).toBe(200);
    expect(first.body).toBe('');
    expect(first.headers['x-request-id']).toBeTruthy();

    expect((await report({ completed: true, metadata: { current: 10 } })).statusCode).toBe(200);
    expect((await report({ completed: false, metadata: { current: 2 } })).statusCode).toBe(200);

    const items = await progress('u1');
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({
      missionKey: setup.missionKey,
      periodKey: '2026-11-22',
      completed: true,
      target: 10,
      current: 2,
      reportCount: 3,
    });
    expect(items[0].completedAt).toBe('2026-11-22T03:00:00.000Z');
  });

  it('50 concurrent identical reports leave exactly one record', async () => {
    const calls = Array.from({ length: 50 }, () =>
      partnerCall(ctx, setup, {
        method: 'POST',
        url: '/v1/achieve',
        body: {
          partnerUid: 'crowd',
          missionKey: setup.missionKey,
          completed: true,
          metadata: { current: 10 },
        },
      }),
    );
    const responses = await Promise.all(calls);
    expect(responses.map((r) => r.statusCode)).toEqual(Array(50).fill(200));
    const items = await progress('crowd');
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ completed: true, reportCount: 50 });
  });
});
