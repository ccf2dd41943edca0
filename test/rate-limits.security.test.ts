// Rate limits (docs/security.md, "Rate limits"): per address on credential-less routes, fewer
// login starts, per partner on the partner API, and stricter limits on failed credentials. A 429
// has the error body and Retry-After; counters are shared by processes and expire.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { LightMyRequestResponse } from 'fastify';
import { openPostgres } from '../src/db/connection.ts';
import type { Database } from '../src/db/connection.ts';
import { buildApp } from '../src/app.ts';
import type { App } from '../src/http/server.ts';
import { partnerCall, setupMission, startTestApp } from './harness.ts';
import type { MissionSetup, TestContext } from './harness.ts';

const LIMITS = {
  RATE_LIMIT_PER_ADDRESS: '5',
  RATE_LIMIT_LOGIN_PER_ADDRESS: '2',
  RATE_LIMIT_PER_PARTNER: '4',
  RATE_LIMIT_FAILED_AUTH_PER_ADDRESS: '3',
  RATE_LIMIT_FAILED_AUTH_PER_PARTNER: '3',
};

function expectRateLimited(response: LightMyRequestResponse) {
  expect(response.statusCode).toBe(429);
  expect(response.json()).toMatchObject({ code: 3005, name: 'RATE_LIMITED' });
  expect(typeof response.json<{ message: string }>().message).toBe('string');
  const retryAfter = Number(response.headers['retry-after']);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
}

let ctx: TestContext;
let s: MissionSetup;
let other: MissionSetup;

const from = (remoteAddress: string, url = '/openapi.json') =>
  ctx.app.inject({ method: 'GET', url, remoteAddress });
const counterRows = async () =>
  (await sql<{ n: number }>`SELECT count(*)::int AS n FROM rate_limit_counters`.execute(ctx.database.db))
    .rows[0]?.n;

beforeAll(async () => {
  ctx = await startTestApp({ env: LIMITS });
  s = await setupMission(ctx);
  other = await setupMission(ctx, { missionKey: 'other' });
});
afterAll(async () => ctx?.close());

describe('credential-less routes, per source address', () => {
  it('answers 429 with the error body and Retry-After past the limit, and only for that address', async () => {
    for (let i = 0; i < 5; i++) expect((await from('10.0.0.1')).statusCode).toBe(200);
    expectRateLimited(await from('10.0.0.1'));
    // Unknown routes count too: a scan is no way around the limit.
    expectRateLimited(await from('10.0.0.1', '/no/such/route'));
    expect((await from('10.0.0.2')).statusCode).toBe(200);
  });

  it('never limits the health probes (load balancers ask often, from few addresses)', async () => {
    for (let i = 0; i < 8; i++) {
      expect((await from('10.0.0.3', '/healthz')).statusCode).toBe(200);
      expect((await from('10.0.0.3', '/readyz')).statusCode).toBe(200);
    }
  });

  it('counts an IPv6 /64 as one address', async () => {
    for (let i = 0; i < 5; i++) expect((await from(`2001:db8:1:2::${i + 1}`)).statusCode).toBe(200);
    expectRateLimited(await from('2001:db8:1:2::ffff'));
    expect((await from('2001:db8:1:3::1')).statusCode).toBe(200);
  });

  it('allows fewer login starts (each writes a row) than other requests', async () => {
    const start = (url: string) => ctx.app.inject({ method: 'GET', url, remoteAddress: '10.0.1.1' });
    expect((await start('/v1/login')).statusCode).not.toBe(429);
    expect((await start(`/v1/mission-users/auth?partnerId=${s.partnerId}`)).statusCode).not.toBe(429);
    expectRateLimited(await start('/v1/login'));
    // Other routes from that address still have their own budget.
    expect((await from('10.0.1.1')).statusCode).toBe(200);
  });
});

describe('login starts behind a carrier NAT (thousands of users on one IPv4 address)', () => {
  let crowd: TestContext;
  beforeAll(async () => {
    // The defaults (an empty value is unset), not the harness's limits-off.
    crowd = await startTestApp({
      env: { RATE_LIMIT_PER_ADDRESS: '', RATE_LIMIT_LOGIN_PER_ADDRESS: '', RATE_LIMIT_LOGIN_PER_BROWSER: '' },
    });
  });
  afterAll(async () => crowd?.close());
  const start = (browser?: string) =>
    crowd.app.inject({
      method: 'GET',
      url: '/v1/login',
      remoteAddress: '203.0.113.9',
      ...(browser !== undefined && { headers: { cookie: `mrs_login=${browser}` } }),
    });

  it('with the default limits, 650 browsers on one address all start their login', async () => {
    // More than the per-address limit of other routes (600): login starts have limits of their own.
    for (let i = 0; i < 650; i++) {
      const response = await start(i % 2 === 0 ? undefined : `browser-${i}`);
      expect(response.statusCode, `start ${i}`).toBe(302);
    }
  }, 120_000);

  it('one browser restarting its login over and over is refused after 20, the others on its address are not', async () => {
    for (let i = 0; i < 20; i++) expect((await start('restless')).statusCode).toBe(302);
    const refused = await start('restless');
    expectRateLimited(refused);
    expect(refused.json().message).toContain('browser');
    expect((await start('patient')).statusCode).toBe(302);
    expect((await start()).statusCode).toBe(302);
  });
});

describe('partner API', () => {
  it('limits each partner separately, not by address', async () => {
    const call = (setup: MissionSetup, remoteAddress: string) =>
      partnerCall(ctx, setup, { method: 'GET', url: '/v1/mission-users?partnerUid=u1', remoteAddress });
    for (let i = 0; i < 4; i++) expect((await call(s, `10.0.2.${i + 1}`)).statusCode).toBe(200);
    expectRateLimited(await call(s, '10.0.2.9'));
    expect((await call(other, '10.0.2.9')).statusCode).toBe(200);
  });

  it('refuses a flood of wrong keys or made-up partner ids from one address with 429', async () => {
    const wrong = (partnerId: string) =>
      ctx.app.inject({
        method: 'GET',
        url: '/v1/mission-users?partnerUid=u1',
        remoteAddress: '10.0.3.1',
        headers: { 'x-partner-id': partnerId, 'x-api-key': 'not-the-key' },
      });
    for (let i = 0; i < 3; i++) expect((await wrong(`ptn_made_up_${i}`)).statusCode).toBe(401);
    expectRateLimited(await wrong('ptn_made_up_4'));
    // Missing headers are failed credentials too.
    expectRateLimited(
      await ctx.app.inject({
        method: 'GET',
        url: '/v1/mission-users?partnerUid=u1',
        remoteAddress: '10.0.3.1',
      }),
    );
  });

  it("answers a wrong key for a partner id 429 once that id saw too many failures, yet the partner's own key still works", async () => {
    const attempt = (remoteAddress: string, apiKey: string) =>
      partnerCall(
        ctx,
        { partnerId: other.partnerId, apiKey },
        { method: 'GET', url: '/v1/mission-users?partnerUid=u2', remoteAddress },
      );
    for (let i = 0; i < 3; i++) expect((await attempt(`10.0.4.${i + 1}`, 'guess')).statusCode).toBe(401);
    expectRateLimited(await attempt('10.0.4.9', 'guess'));
    expect((await attempt('10.0.4.10', other.apiKey)).statusCode).toBe(200);
  });
});

describe('operator API', () => {
  it('refuses a flood of wrong admin bearers from one address with 429', async () => {
    const wrong = () =>
      ctx.app.inject({
        method: 'GET',
        url: '/admin/v1/me',
        remoteAddress: '10.0.5.1',
        headers: { authorization: 'Bearer not-a-real-admin-secret' },
      });
    for (let i = 0; i < 3; i++) expect((await wrong()).statusCode).toBe(401);
    expectRateLimited(await wrong());
    // Operators are not limited by the per-address limit of credential-less routes.
    for (let i = 0; i < 7; i++) expect((await ctx.admin('GET', '/admin/v1/me')).statusCode).toBe(200);
  });
});

describe('counters', () => {
  it('are shared by two app instances on one database', async () => {
    // A second server with its own connection pool (PostgreSQL) on the same database.
    let database: Database = ctx.database;
    if (ctx.databaseUrl !== undefined) database = openPostgres(ctx.databaseUrl, 2);
    const second: App = await buildApp({ config: ctx.config, database, clock: ctx.clock, logger: false });
    try {
      const on = (app: App) => app.inject({ method: 'GET', url: '/openapi.json', remoteAddress: '10.0.6.1' });
      for (const app of [ctx.app, second, ctx.app, second, ctx.app])
        expect((await on(app)).statusCode).toBe(200);
      expectRateLimited(await on(second));
      expectRateLimited(await on(ctx.app));
    } finally {
      await second.close();
      if (database !== ctx.database) await database.close();
    }
  });

  it('are purged by the service once their window has ended', async () => {
    // A window long enough for six requests on a loaded machine (with 1 s the window could end
    // before the sixth, which then passed), short enough to wait for its purge.
    const short = await startTestApp({ env: { ...LIMITS, RATE_LIMIT_WINDOW_SECONDS: '3' } });
    try {
      const hit = () => short.app.inject({ method: 'GET', url: '/openapi.json', remoteAddress: '10.0.7.1' });
      for (let i = 0; i < 5; i++) await hit();
      expectRateLimited(await hit());
      const rows = async () =>
        (
          await sql<{ n: number }>`SELECT count(*)::int AS n FROM rate_limit_counters`.execute(
            short.database.db,
          )
        ).rows[0]?.n;
      expect(await rows()).toBe(1);
      // The service purges every window by itself (bounded wait: 10 s).
      for (let i = 0; i < 100 && (await rows()) !== 0; i++)
        await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await rows()).toBe(0);
      expect((await hit()).statusCode).toBe(200);
    } finally {
      await short.close();
    }
  });

  it('keep one row per key however many requests counted', async () => {
    expect(await counterRows()).toBeGreaterThan(0);
    const before = await counterRows();
    await Promise.all(Array.from({ length: 4 }, () => from('10.0.8.1')));
    expect(await counterRows()).toBe((before ?? 0) + 1);
  });
});
