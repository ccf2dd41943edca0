import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, partnerCall, sessionCookie, setupMission, startTestApp } from './harness.ts';
import type { TestContext } from './harness.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await startTestApp();
});
afterAll(() => ctx.close());

describe('GET /v1/me', () => {
  it('shows the signed-in account and its links; the link check sees the link', async () => {
    const setup = await setupMission(ctx);
    const accountId = await createAccount(ctx, {
      displayName: 'Mina',
      link: { partnerId: setup.partnerId, partnerUid: 'u-7', region: 'JP' },
    });
    const me = await ctx.app.inject({
      method: 'GET',
      url: '/v1/me',
      headers: { cookie: await sessionCookie(ctx, accountId) },
    });
    expect(me.statusCode).toBe(200);
    expect(me.json()).toMatchObject({
      accountId,
      displayName: 'Mina',
      mappings: [
        { partnerId: setup.partnerId, partnerName: 'Test partner', partnerUid: 'u-7', region: 'JP' },
      ],
    });
    const linked = await partnerCall(ctx, setup, { method: 'GET', url: '/v1/mission-users?partnerUid=u-7' });
    expect(linked.json()).toEqual({ result: true });
    const other = await partnerCall(ctx, setup, { method: 'GET', url: '/v1/mission-users?partnerUid=u-8' });
    expect(other.json()).toEqual({ result: false });
  });

  it('refuses a missing, forged or expired session with 401 3210', async () => {
    const accountId = await createAccount(ctx);
    const cookie = await sessionCookie(ctx, accountId);
    const forged = cookie.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
    for (const headers of [{}, { cookie: forged }, { cookie: 'mrs_session=garbage' }]) {
      const response = await ctx.app.inject({ method: 'GET', url: '/v1/me', headers });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toMatchObject({ code: 3210, name: 'USER_UNAUTHORIZED' });
    }
    ctx.clock.advance((ctx.config.sessionTtlSeconds + 1) * 1000);
    const expired = await ctx.app.inject({ method: 'GET', url: '/v1/me', headers: { cookie } });
    expect(expired.statusCode).toBe(401);
  });
});
