// Who may read /metrics, and the refusals the metrics count: without METRICS_TOKEN the main port has
// no /metrics (404 with the error body); with it, only that bearer token reads them (401 otherwise);
// the operations port serves only /metrics, /healthz and /readyz. A refused API key and a 429 each
// move their counter.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import { partnerCall, setupMission, startTestApp } from './harness.ts';
import type { MissionSetup, TestContext } from './harness.ts';
import { parseExposition, sampleValue } from './metrics-text.ts';
import { loadConfig } from '../src/config.ts';
import { readinessOf, startOperationsServer } from '../src/metrics/operations-server.ts';

const TOKEN = 'metrics-token-0123456789';

describe('/metrics on the main port', () => {
  // The app starts in a hook (hook timeout): a fresh PGlite takes long on a loaded machine.
  let plain: TestContext;
  beforeAll(async () => {
    plain = await startTestApp();
  });
  afterAll(async () => {
    await plain?.close();
  });

  it('is not there without METRICS_TOKEN: 404 with the error body', async () => {
    const response = await plain.app.inject({ method: 'GET', url: '/metrics' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({
      code: 3004,
      name: 'ROUTE_NOT_FOUND',
      message: expect.any(String),
    });
    // Not even with a bearer token: nothing is configured to accept one.
    const withBearer = await plain.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(withBearer.statusCode).toBe(404);
  });
});

describe('with METRICS_TOKEN, and the refusals the metrics count', () => {
  let ctx: TestContext;
  let setup: MissionSetup;
  const scrape = async () => {
    const response = await ctx.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(response.statusCode).toBe(200);
    return parseExposition(response.body);
  };

  beforeAll(async () => {
    ctx = await startTestApp({
      // Rate limits are off in the harness; this file turns the failed-key limit on (2 per window).
      env: { METRICS_TOKEN: TOKEN, RATE_LIMIT_FAILED_AUTH_PER_ADDRESS: '2' },
    });
    setup = await setupMission(ctx);
  });
  afterAll(async () => {
    await ctx?.close();
  });

  it('answers 401 with the error body without the token or with another one, and counts it', async () => {
    const without = await ctx.app.inject({ method: 'GET', url: '/metrics' });
    const wrong = await ctx.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${TOKEN}x` },
    });
    const basic = await ctx.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}` },
    });
    for (const response of [without, wrong, basic]) {
      expect(response.statusCode).toBe(401);
      expect(response.headers['www-authenticate']).toBe('Bearer');
      expect(response.json()).toEqual({
        code: 3800,
        name: 'METRICS_UNAUTHORIZED',
        message: expect.any(String),
      });
      expect(response.body).not.toContain('mrs_');
    }
    expect(sampleValue(await scrape(), 'mrs_auth_refusals_total', { scope: 'metrics' })).toBe(3);
  });

  it('a refused API key moves the refusal counter; past the failed-key limit, a 429 moves the rate-limit counter', async () => {
    const before = await scrape();
    const refusalsBefore = sampleValue(before, 'mrs_auth_refusals_total', { scope: 'partner' }) ?? 0;
    expect(sampleValue(before, 'mrs_rate_limit_refusals_total')).toBeUndefined();

    const badKey = () =>
      partnerCall(
        ctx,
        { partnerId: setup.partnerId, apiKey: 'mrs_wrong_key' },
        {
          method: 'GET',
          url: '/v1/mission-users?partnerUid=u1',
          remoteAddress: '10.9.8.7',
        },
      );
    expect((await badKey()).statusCode).toBe(401);
    const once = await scrape();
    expect(sampleValue(once, 'mrs_auth_refusals_total', { scope: 'partner' })).toBe(refusalsBefore + 1);
    // A refused key is counted without a partner label: its partner id was not proven.
    expect(
      sampleValue(once, 'mrs_http_requests_total', {
        route: '/v1/mission-users',
        status: '401',
        partner: 'none',
      }),
    ).toBe(1);

    expect((await badKey()).statusCode).toBe(401);
    const limited = await badKey();
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ code: 3005, name: 'RATE_LIMITED' });
    const after = await scrape();
    expect(sampleValue(after, 'mrs_rate_limit_refusals_total', { limit: 'failed_auth_per_address' })).toBe(1);
    expect(sampleValue(after, 'mrs_auth_refusals_total', { scope: 'partner' })).toBe(refusalsBefore + 2);
  });

  it('the operations port serves /metrics (with the token), /healthz and /readyz, and nothing else', async () => {
    const server = await startOperationsServer({
      metrics: ctx.app.metrics,
      token: TOKEN,
      port: 0,
      host: '127.0.0.1',
      notReady: readinessOf(ctx.app),
    });
    try {
      const base = `http://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
      const metrics = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(metrics.status).toBe(200);
      expect(sampleValue(parseExposition(await metrics.text()), 'mrs_auth_refusals_total')).toBeGreaterThan(
        0,
      );
      const refused = await fetch(`${base}/metrics`);
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ code: 3800, name: 'METRICS_UNAUTHORIZED' });
      expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ status: 'ok' });
      expect(await (await fetch(`${base}/readyz`)).json()).toEqual({ status: 'ready' });
      // The partner API is not on this port.
      const partner = await fetch(`${base}/v1/mission-users?partnerUid=u1`);
      expect(partner.status).toBe(404);
      expect(await partner.json()).toMatchObject({ code: 3004, name: 'ROUTE_NOT_FOUND' });
    } finally {
      await server.close();
    }
  });
});

describe('configuration', () => {
  it('refuses a short METRICS_TOKEN, a METRICS_HOST that is not an address, and a bad METRICS_PORT, naming them', () => {
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN/);
    expect(() => loadConfig({ METRICS_HOST: 'example.com' })).toThrow(/METRICS_HOST/);
    expect(() => loadConfig({ METRICS_PORT: '70000' })).toThrow(/METRICS_PORT/);
    expect(() => loadConfig({ METRICS_MAX_PARTNER_LABELS: '-1' })).toThrow(/METRICS_MAX_PARTNER_LABELS/);
  });

  it('binds the operations port to loopback unless told otherwise, and has no token or port by default', () => {
    const config = loadConfig({});
    expect(config.metrics).toMatchObject({ token: undefined, port: undefined, host: '127.0.0.1' });
    expect(loadConfig({ METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0' }).metrics).toMatchObject({
      port: 9464,
      host: '0.0.0.0',
    });
  });
});
