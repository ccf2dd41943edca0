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

const report = (s: MissionSetup, body: object) =>
  partnerCall(ctx, s, {
    method: 'POST',
    url: '/v1/achieve',
    body: { partnerUid: 'e1', missionKey: s.missionKey, ...body },
  });
const progress = async (s: MissionSetup, uid = 'e1') =>
  (await ctx.admin('GET', `/admin/v1/partners/${s.partnerId}/users/${uid}/progress`)).json()
    .items as unknown[];

describe('POST /v1/achieve errors', () => {
  it('completed:true below target or without current -> 422 3303, nothing written', async () => {
    for (const metadata of [{ current: 9 }, {}, { target: 10 }]) {
      const response = await report(setup, { completed: true, metadata });
      expect(response.statusCode).toBe(422);
      expect(response.json().code).toBe(3303);
    }
    expect(await progress(setup)).toHaveLength(0);
    expect((await report(setup, { completed: true, metadata: { current: 10 } })).statusCode).toBe(200);
    expect(await progress(setup)).toHaveLength(1);
  });

  it('unknown missionKey -> 404 1201', async () => {
    const response = await report(setup, { missionKey: 'no-such-mission', completed: false });
    expect(response.statusCode).toBe(404);
    expect(response.json().code).toBe(1201);
  });

  it('before the promotion starts -> 409 3302', async () => {
    ctx.clock.set('2025-12-31T23:59:59Z');
    try {
      const response = await report(setup, { partnerUid: 'early', completed: false });
      expect(response.statusCode).toBe(409);
      expect(response.json().code).toBe(3302);
      expect(await progress(setup, 'early')).toHaveLength(0);
    } finally {
      ctx.clock.set('2026-11-22T03:00:00Z');
    }
  });

  it('GET /v1/mission-users answers {result:false} for an unlinked user', async () => {
    const response = await partnerCall(ctx, setup, {
      method: 'GET',
      url: '/v1/mission-users?partnerUid=nobody',
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ result: false });
  });
});
