// The built pages are served by the service: /app and /console with deep links falling back to
// their index.html, hashed assets cached for good, API routes untouched, and a clear 503 page
// when the pages were never built. Uses a stand-in dist folder, so no vite build is needed here.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './harness.ts';
import type { TestContext } from './harness.ts';

let dist: string;
let ctx: TestContext;

beforeAll(async () => {
  dist = mkdtempSync(path.join(tmpdir(), 'mrs-web-'));
  mkdirSync(path.join(dist, 'app'));
  mkdirSync(path.join(dist, 'console'));
  mkdirSync(path.join(dist, 'assets'));
  writeFileSync(path.join(dist, 'app', 'index.html'), '<!doctype html><title>My missions</title>');
  writeFileSync(path.join(dist, 'console', 'index.html'), '<!doctype html><title>Operator console</title>');
  writeFileSync(path.join(dist, 'assets', 'app-abc123.js'), 'console.log(1)');
  ctx = await startTestApp({ env: { WEB_DIST_DIR: dist } });
});

afterAll(async () => {
  await ctx.close();
  rmSync(dist, { recursive: true, force: true });
});

describe('web pages', () => {
  it.each([
    ['/app', 'My missions'],
    ['/app/', 'My missions'],
    ['/app/draws/drw_1', 'My missions'],
    ['/console', 'Operator console'],
    ['/console/partners/p_1', 'Operator console'],
  ])('%s answers the page', async (url, title) => {
    const response = await ctx.app.inject({ method: 'GET', url });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.body).toContain(title);
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.headers['content-security-policy']).toContain("script-src 'self'");
  });

  it('forbids framing the console; the mission page only by the FRAME_ANCESTORS origins (by default its own)', async () => {
    const console = await ctx.app.inject({ method: 'GET', url: '/console' });
    expect(console.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(console.headers['x-frame-options']).toBe('DENY');
    const app = await ctx.app.inject({ method: 'GET', url: '/app' });
    expect(app.headers['content-security-policy']).toContain("frame-ancestors 'self'");
    expect(app.headers['x-frame-options']).toBe('SAMEORIGIN');
  });

  it('serves hashed assets with a long cache and 404s unknown ones', async () => {
    const asset = await ctx.app.inject({ method: 'GET', url: '/assets/app-abc123.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.body).toBe('console.log(1)');
    expect(asset.headers['cache-control']).toContain('immutable');
    const missing = await ctx.app.inject({ method: 'GET', url: '/assets/nope.js' });
    expect(missing.statusCode).toBe(404);
  });

  it('leaves the API alone: unknown API routes still answer the JSON error body', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: '/v1/nothing-here' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ code: 3004, name: 'ROUTE_NOT_FOUND' });
    const me = await ctx.app.inject({ method: 'GET', url: '/v1/me' });
    expect(me.json()).toMatchObject({ code: 3210 });
  });
});

describe('web pages not built', () => {
  it('answers 503 with what to run', async () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'mrs-web-empty-'));
    const other = await startTestApp({ env: { WEB_DIST_DIR: empty } });
    try {
      const response = await other.app.inject({ method: 'GET', url: '/console/partners' });
      expect(response.statusCode).toBe(503);
      expect(response.body).toContain('npm run build:web');
    } finally {
      await other.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('GET /admin/v1/me', () => {
  it('names the calling credential and its role, for every role', async () => {
    const created = await ctx.admin('POST', '/admin/v1/admin-credentials', { name: 'Vera', role: 'VIEWER' });
    const { secret } = created.json<{ secret: string }>();
    const me = await ctx.admin('GET', '/admin/v1/me', undefined, secret);
    expect(me.statusCode).toBe(200);
    expect(me.json()).toMatchObject({ name: 'Vera', role: 'VIEWER' });
    expect(me.json()).not.toHaveProperty('secret');
    const owner = await ctx.admin('GET', '/admin/v1/me');
    expect(owner.json()).toMatchObject({ role: 'OWNER' });
    // What this (test, not production) deployment accepts as a webhook URL: the console's hint.
    expect(owner.json().webhookUrls).toEqual({ httpsRequired: false, privateAddressesAllowed: false });
    const nobody = await ctx.admin('GET', '/admin/v1/me', undefined, 'not-a-real-secret-at-all');
    expect(nobody.statusCode).toBe(401);
    expect(nobody.json()).toMatchObject({ code: 3200 });
  });
});
