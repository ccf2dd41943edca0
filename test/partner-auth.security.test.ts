import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partnerCall, setupMission, startTestApp } from './harness.ts';
import type { MissionSetup, TestContext } from './harness.ts';

let ctx: TestContext;
let setup: MissionSetup;
let other: MissionSetup;

beforeAll(async () => {
  ctx = await startTestApp();
  setup = await setupMission(ctx);
  other = await setupMission(ctx, { missionKey: 'other-mission' });
});
afterAll(() => ctx.close());

const routes = (s: MissionSetup) => [
  { method: 'GET' as const, url: '/v1/mission-users?partnerUid=u1' },
  {
    method: 'POST' as const,
    url: '/v1/achieve',
    body: { partnerUid: 'u1', missionKey: s.missionKey, completed: false },
  },
];

const expectError = (
  response: { statusCode: number; json: () => unknown; headers: Record<string, unknown> },
  status: number,
  code: number,
) => {
  expect(response.statusCode).toBe(status);
  const body = response.json() as { code: unknown; name: unknown; message: unknown };
  expect(body.code).toBe(code);
  expect(typeof body.name).toBe('string');
  expect(typeof body.message).toBe('string');
  expect(response.headers['x-request-id']).toBeTruthy();
};

describe('every partner route refuses bad credentials', () => {
  for (const index of [0, 1]) {
    it(`route ${index}: missing headers, wrong id, wrong key, foreign key -> 401 3100`, async () => {
      const route = routes(setup)[index]!;
      const noHeaders = await ctx.app.inject({
        method: route.method,
        url: route.url,
        remoteAddress: '127.0.0.1',
        ...(route.body && { payload: route.body }),
      });
      expectError(noHeaders, 401, 3100);
      expectError(await partnerCall(ctx, { partnerId: 'nope', apiKey: setup.apiKey }, route), 401, 3100);
      expectError(
        await partnerCall(ctx, { partnerId: other.partnerId, apiKey: setup.apiKey }, route),
        401,
        3100,
      );
      expectError(
        await partnerCall(ctx, { partnerId: setup.partnerId, apiKey: `${setup.apiKey}x` }, route),
        401,
        3100,
      );
      expectError(
        await partnerCall(ctx, { partnerId: setup.partnerId, apiKey: other.apiKey }, route),
        401,
        3100,
      );
      // the right credentials work
      expect((await partnerCall(ctx, setup, route)).statusCode).toBe(200);
    });
  }

  it('a revoked key fails immediately on every route', async () => {
    const s = await setupMission(ctx, { missionKey: 'revoke-me' });
    for (const route of routes(s)) expect((await partnerCall(ctx, s, route)).statusCode).toBe(200);
    const keys = (await ctx.admin('GET', `/admin/v1/partners/${s.partnerId}/api-keys`)).json().items;
    expect(keys).toHaveLength(1);
    expect(
      (await ctx.admin('DELETE', `/admin/v1/partners/${s.partnerId}/api-keys/${keys[0].id}`)).statusCode,
    ).toBe(204);
    for (const route of routes(s)) expectError(await partnerCall(ctx, s, route), 401, 3100);
  });

  it('a disabled partner is refused with 403 3104 on every route', async () => {
    const s = await setupMission(ctx, { missionKey: 'disable-me' });
    const patched = await ctx.admin('PATCH', `/admin/v1/partners/${s.partnerId}`, { status: 'DISABLED' });
    expect(patched.statusCode).toBe(200);
    for (const route of routes(s)) expectError(await partnerCall(ctx, s, route), 403, 3104);
  });
});

describe('client address and the allow-list', () => {
  const achieve = (s: MissionSetup, uid: string) =>
    routes(s)[1]!.body && {
      method: 'POST' as const,
      url: '/v1/achieve',
      body: { partnerUid: uid, missionKey: s.missionKey, completed: false },
    };

  it('achieve from outside the allow-list -> 403 3101, and nothing is written', async () => {
    const response = await partnerCall(ctx, setup, {
      ...achieve(setup, 'outsider')!,
      remoteAddress: '203.0.113.9',
    });
    expectError(response, 403, 3101);
    const items = (
      await ctx.admin('GET', `/admin/v1/partners/${setup.partnerId}/users/outsider/progress`)
    ).json().items;
    expect(items).toHaveLength(0);
  });

  it('with default TRUST_PROXY a spoofed X-Forwarded-For is ignored', async () => {
    const response = await partnerCall(ctx, setup, {
      ...achieve(setup, 'spoof')!,
      remoteAddress: '203.0.113.9',
      headers: { 'x-forwarded-for': '127.0.0.1' },
    });
    expectError(response, 403, 3101);
  });

  it('with TRUST_PROXY=1 the forwarded address is used', async () => {
    const proxied = await startTestApp({ env: { TRUST_PROXY: '1' } });
    try {
      const s = await setupMission(proxied);
      const call = (xff: string) =>
        partnerCall(proxied, s, {
          ...achieve(s, 'p')!,
          remoteAddress: '10.0.0.5',
          headers: { 'x-forwarded-for': xff },
        });
      expect((await call('127.0.0.1')).statusCode).toBe(200);
      expectError(await call('203.0.113.9'), 403, 3101);
    } finally {
      await proxied.close();
    }
  });

  it('with TRUST_PROXY as a CIDR list only those proxies are believed', async () => {
    const proxied = await startTestApp({ env: { TRUST_PROXY: '10.0.0.0/8' } });
    try {
      const s = await setupMission(proxied);
      const call = (remoteAddress: string) =>
        partnerCall(proxied, s, {
          ...achieve(s, 'c')!,
          remoteAddress,
          headers: { 'x-forwarded-for': '127.0.0.1' },
        });
      expect((await call('10.1.2.3')).statusCode).toBe(200);
      expectError(await call('192.0.2.7'), 403, 3101);
    } finally {
      await proxied.close();
    }
  });

  it('over a real socket the peer address is used (127.0.0.1 allowed, spoof ignored)', async () => {
    const own = await startTestApp();
    try {
      const s = await setupMission(own);
      await own.app.listen({ host: '127.0.0.1', port: 0 });
      const address = own.app.server.address();
      if (address === null || typeof address === 'string') throw new Error('no port');
      const send = (partnerId: string, headers: Record<string, string> = {}) =>
        fetch(`http://127.0.0.1:${address.port}/v1/achieve`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-partner-id': partnerId,
            'x-api-key': s.apiKey,
            ...headers,
          },
          body: JSON.stringify({ partnerUid: 'sock', missionKey: s.missionKey, completed: false }),
        });
      expect((await send(s.partnerId, { 'x-forwarded-for': '203.0.113.9' })).status).toBe(200);
      // narrow the allow-list to an address we are not: refused though XFF claims it
      expect(
        (await own.admin('PATCH', `/admin/v1/partners/${s.partnerId}`, { allowedIps: ['198.51.100.0/24'] }))
          .statusCode,
      ).toBe(200);
      const refused = await send(s.partnerId, { 'x-forwarded-for': '198.51.100.1' });
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as { code: number }).code).toBe(3101);
    } finally {
      await own.close();
    }
  });
});
