// Security headers (docs/security.md, "Security headers"): a Content-Security-Policy, nosniff and
// no framing on /docs, the API and the HTML error pages; /app framed only by FRAME_ANCESTORS; the
// inline style of the error pages and the inline script of the LIFF page allowed by their hashes.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { startTestApp } from './harness.ts';
import type { TestContext } from './harness.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await startTestApp({
    env: { FRAME_ANCESTORS: "'self' https://liff.line.me", LOGIN_LIFF_ID: '1234567890-AbcdEfgh' },
  });
});
afterAll(async () => ctx?.close());

const get = (url: string, headers: Record<string, string> = {}) =>
  ctx.app.inject({ method: 'GET', url, headers });
const csp = (response: LightMyRequestResponse) => String(response.headers['content-security-policy'] ?? '');
const hashOf = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

function expectNotFramable(response: LightMyRequestResponse) {
  expect(csp(response)).toContain("frame-ancestors 'none'");
  expect(response.headers['x-frame-options']).toBe('DENY');
  expect(response.headers['x-content-type-options']).toBe('nosniff');
}

describe('security headers', () => {
  it('/docs (swagger UI) has a strict policy and may not be framed', async () => {
    const docs = await get('/docs/');
    expect(docs.statusCode).toBe(200);
    expectNotFramable(docs);
    expect(csp(docs)).toContain("default-src 'self'");
    expect(csp(docs)).toContain("script-src 'self'");
    expect(csp(docs)).toContain("object-src 'none'");
    // Swagger UI needs inline styles, never inline scripts.
    expect(csp(docs)).not.toMatch(/script-src[^;]*unsafe-inline/);
  });

  it('API answers, errors included, carry nosniff and no framing', async () => {
    expectNotFramable(await get('/healthz'));
    const missing = await get('/v1/no-such-route');
    expect(missing.statusCode).toBe(404);
    expectNotFramable(missing);
  });

  it("the partner API's answers, refusals included, carry an API's headers and none of a page's", async () => {
    const answers = [
      await get('/v1/mission-users?partnerUid=u-1'),
      await get('/v1/mission-users?partnerUid=u-1', { 'x-partner-id': 'ptn_nope', 'x-api-key': 'nope' }),
      await ctx.app.inject({ method: 'POST', url: '/v1/achieve', payload: {} }),
    ];
    for (const answer of answers) {
      expect(answer.statusCode).toBe(401);
      expect(answer.json()).toHaveProperty('code');
      expectNotFramable(answer);
      expect(csp(answer)).toBe("default-src 'none';frame-ancestors 'none'");
      for (const pageHeader of ['referrer-policy', 'cross-origin-opener-policy', 'x-xss-protection'])
        expect(answer.headers[pageHeader], pageHeader).toBeUndefined();
    }
    // Nothing else under /v1 changes: the login's pages keep a page's policy.
    const login = await get(
      '/v1/mission-users/auth?partnerId=ptn_nope&redirectUrl=https%3A%2F%2Fevil.example',
    );
    expect(csp(login)).toContain("default-src 'self'");
    expect(login.headers['referrer-policy']).toBe('same-origin');
  });

  it('the HTML error page of the login has the policy, and its inline style is allowed by hash', async () => {
    const page = await get(
      '/v1/mission-users/auth?partnerId=ptn_nope&redirectUrl=https%3A%2F%2Fevil.example',
      { accept: 'text/html' },
    );
    expect(page.statusCode).toBeGreaterThanOrEqual(400);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expectNotFramable(page);
    const style = /<style>([\s\S]*?)<\/style>/.exec(page.body)?.[1];
    expect(style).toBeDefined();
    expect(csp(page)).toContain(hashOf(style ?? ''));
    expect(csp(page)).not.toContain('unsafe-inline');
  });

  it('/app may be framed by the FRAME_ANCESTORS origins only; the console never', async () => {
    const app = await get('/app');
    expect(csp(app)).toContain("frame-ancestors 'self' https://liff.line.me");
    // X-Frame-Options cannot name a list of origins; the CSP alone says who may frame.
    expect(app.headers['x-frame-options']).toBeUndefined();
    expect(app.headers['x-content-type-options']).toBe('nosniff');
    expect(csp(await get('/app/draws/drw_1'))).toContain('https://liff.line.me');
    expectNotFramable(await get('/console'));
  });

  it("the LIFF page may run LINE's SDK and its own inline script (by hash), and nothing else inline", async () => {
    const liff = await get('/v1/mission-users/auth/liff');
    expect(liff.statusCode).toBe(200);
    const inline = /<script>([\s\S]*?)<\/script>/.exec(liff.body)?.[1];
    expect(inline).toBeDefined();
    const policy = csp(liff);
    expect(policy).toMatch(/script-src 'self' https:\/\/static\.line-scdn\.net 'sha256-/);
    expect(policy).toContain(hashOf(inline ?? ''));
    expect(policy).not.toContain('unsafe-inline');
    expectNotFramable(liff);
  });
});
