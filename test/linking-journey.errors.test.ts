// What must never happen in the login journey: an open redirect, a replayed or tampered login, a
// token for a login that failed. Every refusal is a 4xx with the error body (a page for browsers).
import { describe, expect, it } from 'vitest';
import type { TestContext } from './harness.ts';
import {
  authUrl,
  createLinkingPartner,
  loginFormAction,
  PARTNER_REDIRECT,
  TestBrowser,
  upToCallback as upToCallbackOf,
  useLoginApp,
} from './login-helpers.ts';
import type { LinkingPartner } from './login-helpers.ts';

let ctx: TestContext;
let partner: LinkingPartner;
useLoginApp(
  { captureLogs: true, redirectUrls: [PARTNER_REDIRECT, 'http://localhost:3000/cb'] },
  (started) => ({ ctx, partner } = started),
);

/** Logs in at the provider and stops just before the browser reaches our callback. */
const upToCallback = (browser: TestBrowser, username = 'mallory', tamper?: (auth: URL) => void) =>
  upToCallbackOf(browser, partner.partnerId, username, tamper);

function lastLoginFailure(): string {
  const line = ctx.logs.filter((l) => l.msg === 'login failed at the code exchange or ID token check').at(-1);
  return JSON.stringify(line?.err ?? {});
}

async function loginStates(): Promise<number> {
  const rows = await ctx.database.db.selectFrom('login_states').select('state_hash').execute();
  return rows.length;
}

describe('login redirect refuses, never redirects', () => {
  const cases: Array<[string, string]> = [
    ['another host', 'https://evil.example/linked'],
    ['a look-alike host', 'https://partner.example.evil.example/linked'],
    ['userinfo @ in the authority', 'https://partner.example@evil.example/linked'],
    ['encoded @ in the authority', 'https://partner.example%40evil.example/linked'],
    ['a scheme change', 'http://partner.example/linked'],
    ['javascript:', 'javascript:alert(document.cookie)'],
    ['another port', 'https://partner.example:444/linked'],
    ['path traversal', 'https://partner.example/linked/../admin'],
    ['encoded traversal', 'https://partner.example/x/%2e%2e/linked/..%2f..%2fadmin'],
    ['a longer path', 'https://partner.example/linked/more'],
    ['a backslash trick', 'https://partner.example\\@evil.example/linked'],
    ['protocol-relative', '//evil.example/linked'],
    ['a fragment', 'https://partner.example/linked#x'],
    ['a registration of another partner', 'https://other-partner.example/cb'],
    ['localhost with another port', 'http://localhost:3001/cb'],
    ['not a URL', '%%%'],
  ];
  it.each(cases)('redirectUrl with %s is a 400 with no Location', async (_label, redirectUrl) => {
    const before = await loginStates();
    const response = await ctx.app.inject({
      method: 'GET',
      url: `/v1/mission-users/auth?${new URLSearchParams({ partnerId: partner.partnerId, redirectUrl })}`,
    });
    expect(response.statusCode).toBe(400);
    expect(response.headers.location).toBeUndefined();
    expect(response.json()).toMatchObject({ code: 3400, name: 'INVALID_REDIRECT_URL' });
    expect(await loginStates()).toBe(before);
  });

  it('a browser sees the refusal as a page with the code', async () => {
    const response = await ctx.app.inject({
      method: 'GET',
      url: `/v1/mission-users/auth?${new URLSearchParams({ partnerId: partner.partnerId, redirectUrl: 'https://evil.example/' })}`,
      headers: { accept: 'text/html,application/xhtml+xml' },
    });
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toContain('text/html');
    expect(response.body).toContain('3400 INVALID_REDIRECT_URL');
    expect(response.headers.location).toBeUndefined();
  });

  it('an unknown or disabled partner, a missing field or a bad browserType is a 400', async () => {
    const unknown = await ctx.app.inject({
      method: 'GET',
      url: `/v1/mission-users/auth?${new URLSearchParams({ partnerId: 'ptn_nope', redirectUrl: PARTNER_REDIRECT })}`,
    });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().name).toBe('LOGIN_PARTNER_INVALID');

    const other = await createLinkingPartner(ctx, [PARTNER_REDIRECT]);
    await ctx.admin('PATCH', `/admin/v1/partners/${other.partnerId}`, { status: 'DISABLED' });
    const disabled = await ctx.app.inject({
      method: 'GET',
      url: `/v1/mission-users/auth?${new URLSearchParams({ partnerId: other.partnerId, redirectUrl: PARTNER_REDIRECT })}`,
    });
    expect(disabled.statusCode).toBe(400);
    expect(disabled.json().name).toBe('LOGIN_PARTNER_INVALID');

    const missing = await ctx.app.inject({
      method: 'GET',
      url: `/v1/mission-users/auth?partnerId=${partner.partnerId}`,
    });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().name).toBe('VALIDATION_FAILED');

    for (const browserType of ['mini', 'APP', 'WEB ']) {
      const bad = await ctx.app.inject({
        method: 'GET',
        url: `/v1/mission-users/auth?${new URLSearchParams({ partnerId: partner.partnerId, redirectUrl: PARTNER_REDIRECT, browserType })}`,
      });
      expect(bad.statusCode, browserType).toBe(400);
      expect(bad.json().name).toBe('INVALID_BROWSER_TYPE');
    }
    const empty = await ctx.app.inject({
      method: 'GET',
      url: `/v1/mission-users/auth?${new URLSearchParams({ partnerId: partner.partnerId, redirectUrl: PARTNER_REDIRECT, browserType: '' })}`,
    });
    expect(empty.statusCode).toBe(302);
  });
});

describe('the callback', () => {
  it('refuses a tampered state and a replayed callback', async () => {
    const browser = new TestBrowser(ctx);
    const callback = await upToCallback(browser);
    const tampered = new URL(callback);
    tampered.searchParams.set('state', `${tampered.searchParams.get('state')}x`);
    const bad = await browser.request('GET', tampered.href);
    expect(bad.status).toBe(400);
    expect(bad.body).toContain('LOGIN_STATE_INVALID');
    expect(bad.location).toBeUndefined();

    const good = await browser.request('GET', callback);
    expect(good.status).toBe(302);
    expect(new URL(good.location as string).searchParams.get('token')).toMatch(/^mtk_/);

    const replay = await browser.request('GET', callback);
    expect(replay.status).toBe(400);
    expect(replay.body).toContain('LOGIN_STATE_INVALID');
    expect(replay.location).toBeUndefined();
  });

  it('refuses a callback without a state, or arriving in another browser', async () => {
    const none = await ctx.app.inject({
      method: 'GET',
      url: '/v1/mission-users/auth/callback?code=abc',
      headers: { accept: 'application/json' },
    });
    expect(none.statusCode).toBe(400);
    expect(none.json().name).toBe('LOGIN_STATE_INVALID');

    const browser = new TestBrowser(ctx);
    const callback = await upToCallback(browser);
    // An attacker sends their own callback link to a victim's browser (login CSRF).
    const victim = new TestBrowser(ctx);
    const forced = await victim.request('GET', callback);
    expect(forced.status).toBe(400);
    expect(forced.body).toContain('another browser');
    expect(forced.location).toBeUndefined();
  });

  it('a login with the wrong nonce goes back to the partner with error, never a token', async () => {
    const browser = new TestBrowser(ctx);
    const callback = await upToCallback(browser, 'mallory', (auth) =>
      auth.searchParams.set('nonce', 'nonce-of-another-login-0123456789abcdef012345'),
    );
    const answer = await browser.request('GET', callback);
    expect(answer.status).toBe(302);
    const back = new URL(answer.location as string);
    expect(`${back.origin}${back.pathname}`).toBe(PARTNER_REDIRECT);
    expect(back.searchParams.get('error')).toBe('login_failed');
    expect(back.searchParams.get('token')).toBeNull();
    expect(lastLoginFailure()).toMatch(/nonce/i);
  });

  it('a code obtained with another PKCE challenge is not exchanged', async () => {
    const browser = new TestBrowser(ctx);
    const callback = await upToCallback(browser, 'mallory', (auth) =>
      auth.searchParams.set('code_challenge', 'A'.repeat(43)),
    );
    const answer = await browser.request('GET', callback);
    const back = new URL(answer.location as string);
    expect(back.searchParams.get('error')).toBe('login_failed');
    expect(back.searchParams.get('token')).toBeNull();
    expect(lastLoginFailure()).toMatch(/invalid_grant|PKCE|code_verifier/i);
  });

  it('a denied login goes back to the partner with error=access_denied', async () => {
    const browser = new TestBrowser(ctx);
    const start = await browser.follow(authUrl(partner.partnerId, PARTNER_REDIRECT));
    const { abort } = loginFormAction(start.hops.at(-1)!);
    const cancelled = await browser.request('POST', abort);
    const { next } = await browser.follow(cancelled.location as string);
    const back = new URL(next as string);
    expect(`${back.origin}${back.pathname}`).toBe(PARTNER_REDIRECT);
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('token')).toBeNull();
  });

  it('a login that took longer than LOGIN_STATE_TTL_SECONDS is refused', async () => {
    const browser = new TestBrowser(ctx);
    const callback = await upToCallback(browser);
    ctx.clock.advance(ctx.config.login.stateTtlSeconds * 1000 + 1000);
    try {
      const late = await browser.request('GET', callback);
      expect(late.status).toBe(400);
      expect(late.body).toContain('took too long');
    } finally {
      ctx.clock.set(new Date().toISOString());
    }
  });

  it('logs each refusal with its code', () => {
    const refused = ctx.logs.filter((line) => line.msg === 'request refused').map((line) => line.errorName);
    expect(refused).toContain('INVALID_REDIRECT_URL');
    expect(refused).toContain('LOGIN_STATE_INVALID');
  });
});

describe('the mission page login', () => {
  it.each(['//evil.example/app', 'https://evil.example/app', '/\\evil.example'])(
    'refuses returnTo=%s',
    async (returnTo) => {
      const response = await ctx.app.inject({
        method: 'GET',
        url: `/v1/login?returnTo=${encodeURIComponent(returnTo)}`,
      });
      expect(response.statusCode).toBe(400);
      expect(response.json().name).toBe('INVALID_RETURN_PATH');
      expect(response.headers.location).toBeUndefined();
    },
  );
});
