// Sessions are server side (finding 3): logout and "sign out everywhere" end them at once, in every
// process on the same database; cookie-authenticated writes refuse other sites (finding 11).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import type { App } from '../src/http/server.ts';
import { loadConfig } from '../src/config.ts';
import { secureCookies } from '../src/http/session.ts';
import { createAccount, sessionCookie, startSecondApp, startTestApp } from './harness.ts';
import type { TestContext } from './harness.ts';
import { APP_ORIGIN, issuerEnv, loginFormAction, startTestIssuer, TestBrowser } from './login-helpers.ts';
import type { TestIssuer } from './login-helpers.ts';

let issuer: TestIssuer;
let ctx: TestContext;
/** A second service process on the same database (its own pool on PostgreSQL). */
let other: { app: App; close(): Promise<void> };

beforeAll(async () => {
  issuer = await startTestIssuer();
  ctx = await startTestApp({ env: issuerEnv(issuer), now: new Date().toISOString() });
  if (ctx.databaseUrl) {
    other = await startSecondApp(ctx);
  } else {
    // PGlite is one in-process database: the second app shares it but nothing else.
    const app = await buildApp({
      config: ctx.config,
      database: ctx.database,
      clock: ctx.clock,
      logger: false,
    });
    await app.ready();
    other = { app, close: () => app.close() };
  }
});
afterAll(async () => {
  await other?.close();
  await ctx?.close();
  await issuer?.close();
});

const ours = { origin: APP_ORIGIN };
const me = (app: App, cookie: string) => app.inject({ method: 'GET', url: '/v1/me', headers: { cookie } });
const post = (app: App, url: string, headers: Record<string, string>) =>
  app.inject({ method: 'POST', url, headers });

/** Signs in on the mission page through the real login; answers the session cookie it set. */
async function signIn(username: string): Promise<{ browser: TestBrowser; cookie: string }> {
  const browser = new TestBrowser(ctx);
  const start = await browser.follow(`${APP_ORIGIN}/v1/login?returnTo=%2Fapp`);
  const posted = await browser.request('POST', loginFormAction(start.hops.at(-1)!).login, {
    form: { username },
  });
  await browser.follow(posted.location as string, (next) => new URL(next).pathname === '/app');
  const id = browser.cookies(APP_ORIGIN).get('mrs_session');
  if (!id) throw new Error('no session cookie after the login');
  return { browser, cookie: `mrs_session=${id}` };
}

describe('logout', () => {
  it('ends the session: a copy of the cookie is refused afterwards', async () => {
    const { browser, cookie } = await signIn('gina');
    expect((await me(ctx.app, cookie)).statusCode).toBe(200);
    const out = await browser.request('POST', `${APP_ORIGIN}/v1/logout`);
    expect(out.status).toBe(204);
    const copied = await me(ctx.app, cookie);
    expect(copied.statusCode).toBe(401);
    expect(copied.json()).toMatchObject({ code: 3210, name: 'USER_UNAUTHORIZED' });
  });

  it('stores only a hash of the session id', async () => {
    const { cookie } = await signIn('hana');
    const id = cookie.slice('mrs_session='.length);
    expect(id).toMatch(/^mss_[A-Za-z0-9_-]{43}$/);
    const rows = await ctx.database.db.selectFrom('user_sessions').selectAll().execute();
    expect(rows.length).toBeGreaterThan(0);
    expect(JSON.stringify(rows)).not.toContain(id);
  });

  it('a new login ends the session the browser had before it', async () => {
    const accountId = await createAccount(ctx);
    const planted = await sessionCookie(ctx, accountId);
    const browser = new TestBrowser(ctx);
    browser.cookies(APP_ORIGIN).set('mrs_session', planted.slice('mrs_session='.length));
    const start = await browser.follow(`${APP_ORIGIN}/v1/login`);
    const posted = await browser.request('POST', loginFormAction(start.hops.at(-1)!).login, {
      form: { username: 'ivan' },
    });
    await browser.follow(posted.location as string, (next) => new URL(next).pathname === '/app');
    expect(browser.cookies(APP_ORIGIN).get('mrs_session')).not.toBe(planted.slice('mrs_session='.length));
    expect((await me(ctx.app, planted)).statusCode).toBe(401);
  });
});

describe('across processes on one database', () => {
  it('a logout on one process is refused on the other at once', async () => {
    const { cookie } = await signIn('jun');
    expect((await me(other.app, cookie)).statusCode).toBe(200);
    expect((await post(ctx.app, '/v1/logout', { ...ours, cookie })).statusCode).toBe(204);
    expect((await me(other.app, cookie)).statusCode).toBe(401);
    expect((await me(ctx.app, cookie)).statusCode).toBe(401);
  });

  it('sign out everywhere on one process ends every session of the account on both', async () => {
    const accountId = await createAccount(ctx);
    const phone = await sessionCookie(ctx, accountId);
    const laptop = await sessionCookie(ctx, accountId);
    const someoneElse = await sessionCookie(ctx, await createAccount(ctx));
    for (const cookie of [phone, laptop]) expect((await me(ctx.app, cookie)).statusCode).toBe(200);

    const revoked = await post(other.app, '/v1/me/sessions/revoke-all', { ...ours, cookie: phone });
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json()).toEqual({ endedSessions: 2 });
    expect(String(revoked.headers['set-cookie'])).toMatch(/^mrs_session=;/);
    for (const app of [ctx.app, other.app]) {
      for (const cookie of [phone, laptop]) expect((await me(app, cookie)).statusCode).toBe(401);
      expect((await me(app, someoneElse)).statusCode).toBe(200);
    }
  });
});

describe('cookie-authenticated writes refuse other sites', () => {
  const refusals: Array<[string, Record<string, string>]> = [
    ['another origin', { origin: 'https://evil.example' }],
    ['Origin: null', { origin: 'null' }],
    ['a look-alike origin', { origin: `${APP_ORIGIN}.evil.example` }],
    ['Sec-Fetch-Site: cross-site', { 'sec-fetch-site': 'cross-site' }],
    ['Sec-Fetch-Site: same-site', { 'sec-fetch-site': 'same-site' }],
    ['our origin but a cross-site fetch', { ...ours, 'sec-fetch-site': 'cross-site' }],
    ['neither header', {}],
  ];

  it.each(refusals)(
    '%s: logout and revoke-all are 403 3420 and the session lives on',
    async (_label, headers) => {
      const cookie = await sessionCookie(ctx, await createAccount(ctx));
      for (const url of ['/v1/logout', '/v1/me/sessions/revoke-all']) {
        const response = await post(ctx.app, url, { ...headers, cookie });
        expect(response.statusCode, url).toBe(403);
        expect(response.json(), url).toMatchObject({ code: 3420, name: 'CROSS_SITE_REQUEST' });
        expect(response.headers['set-cookie'], url).toBeUndefined();
      }
      expect((await me(ctx.app, cookie)).statusCode).toBe(200);
    },
  );

  it('our own pages may write (Origin ours, or Sec-Fetch-Site same-origin); reads need neither', async () => {
    const cookie = await sessionCookie(ctx, await createAccount(ctx));
    expect((await me(ctx.app, cookie)).statusCode).toBe(200);
    const viaFetchSite = await post(ctx.app, '/v1/me/sessions/revoke-all', {
      'sec-fetch-site': 'same-origin',
      cookie,
    });
    expect(viaFetchSite.statusCode).toBe(200);
    const again = await sessionCookie(ctx, await createAccount(ctx));
    expect(
      (await post(ctx.app, '/v1/logout', { ...ours, 'sec-fetch-site': 'same-origin', cookie: again }))
        .statusCode,
    ).toBe(204);
  });
});

describe('cookie attributes', () => {
  it('cookies are Secure in production, and whenever the public address is https', () => {
    const base = loadConfig({});
    expect(secureCookies({ ...base, nodeEnv: 'production', publicBaseUrl: 'http://rewards.example' })).toBe(
      true,
    );
    expect(secureCookies({ ...base, nodeEnv: 'development', publicBaseUrl: 'https://rewards.example' })).toBe(
      true,
    );
    expect(secureCookies({ ...base, nodeEnv: 'development', publicBaseUrl: 'http://localhost:8080' })).toBe(
      false,
    );
  });

  it('a production app sets and clears its cookies with Secure, HttpOnly, SameSite=Lax', async () => {
    const config = { ...ctx.config, nodeEnv: 'production', publicBaseUrl: 'https://rewards.example' };
    const app = await buildApp({ config, database: ctx.database, clock: ctx.clock, logger: false });
    try {
      await app.ready();
      const login = await app.inject({ method: 'GET', url: '/v1/login' });
      expect(login.statusCode).toBe(302);
      expect(String(login.headers['set-cookie'])).toMatch(/^mrs_login=.*; Secure/);
      const cookie = await sessionCookie(ctx, await createAccount(ctx));
      const out = await app.inject({
        method: 'POST',
        url: '/v1/logout',
        headers: { origin: 'https://rewards.example', cookie },
      });
      expect(out.statusCode).toBe(204);
      const cleared = String(out.headers['set-cookie']);
      expect(cleared).toMatch(/^mrs_session=;/);
      expect(cleared).toContain('Secure');
      expect(cleared).toContain('HttpOnly');
      expect(cleared).toContain('SameSite=Lax');
    } finally {
      await app.close();
    }
  });
});
