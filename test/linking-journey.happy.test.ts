// The linking journey over HTTP against an independent OpenID provider on loopback: auth redirect,
// provider login, callback, back to the partner with a token, connect, link check true.
import { describe, expect, it } from 'vitest';
import { partnerCall } from './harness.ts';
import type { TestContext } from './harness.ts';
import {
  APP_ORIGIN,
  authUrl,
  CLIENT_ID,
  loginAtPartner,
  loginFormAction,
  PARTNER_REDIRECT,
  TestBrowser,
  useLoginApp,
} from './login-helpers.ts';
import type { LinkingPartner, TestIssuer } from './login-helpers.ts';

let issuer: TestIssuer;
let ctx: TestContext;
let partner: LinkingPartner;
useLoginApp({}, (started) => ({ issuer, ctx, partner } = started));

describe('linking journey', () => {
  it('redirects at once to the provider with state, nonce and PKCE S256', async () => {
    const response = await new TestBrowser(ctx).request(
      'GET',
      authUrl(partner.partnerId, `${PARTNER_REDIRECT}?from=app`, 'WEB'),
    );
    expect(response.status).toBe(302);
    const location = new URL(response.location as string);
    expect(location.origin).toBe(issuer.issuer);
    expect(location.pathname).toBe('/auth');
    const params = location.searchParams;
    expect(params.get('client_id')).toBe(CLIENT_ID);
    expect(params.get('redirect_uri')).toBe(`${APP_ORIGIN}/v1/mission-users/auth/callback`);
    expect(params.get('response_type')).toBe('code');
    expect(params.get('scope')).toBe('openid profile');
    expect(params.get('code_challenge_method')).toBe('S256');
    expect(params.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(params.get('state')?.length).toBeGreaterThanOrEqual(43);
    expect(params.get('nonce')?.length).toBeGreaterThanOrEqual(43);
    // The state is never stored in clear.
    const stored = await ctx.database.db.selectFrom('login_states').select('state_hash').execute();
    expect(stored.map((r) => r.state_hash)).not.toContain(params.get('state'));
  });

  it('walks auth -> login -> callback -> partner with a token -> connect -> linked', async () => {
    const browser = new TestBrowser(ctx);
    const landed = await loginAtPartner(browser, partner.partnerId, 'alice', `${PARTNER_REDIRECT}?from=app`);
    expect(`${landed.origin}${landed.pathname}`).toBe(PARTNER_REDIRECT);
    expect(landed.searchParams.get('from')).toBe('app');
    expect(landed.searchParams.get('error')).toBeNull();
    const token = landed.searchParams.get('token') as string;
    expect(token).toMatch(/^mtk_[A-Za-z0-9_-]{43}$/);

    const before = await partnerCall(ctx, partner, {
      method: 'GET',
      url: '/v1/mission-users?partnerUid=u-alice',
    });
    expect(before.json()).toEqual({ result: false });

    const connected = await partnerCall(ctx, partner, {
      method: 'POST',
      url: '/v1/mission-users/connect',
      body: { token, partnerUid: 'u-alice', region: 'kr' },
    });
    expect(connected.statusCode).toBe(200);
    expect(connected.body).toBe('');

    const after = await partnerCall(ctx, partner, {
      method: 'GET',
      url: '/v1/mission-users?partnerUid=u-alice',
    });
    expect(after.json()).toEqual({ result: true });

    // The account is the provider's subject; the region was upper-cased.
    const mapping = await ctx.admin('GET', `/admin/v1/partners/${partner.partnerId}/users/u-alice/mapping`);
    expect(mapping.statusCode).toBe(200);
    expect(mapping.json()).toMatchObject({
      partnerUid: 'u-alice',
      region: 'KR',
      account: { issuer: issuer.issuer, subject: 'alice', displayName: 'alice' },
    });

    // The same login signed the browser in to the mission page.
    const me = await browser.request('GET', `${APP_ORIGIN}/v1/me`, { accept: 'application/json' });
    expect(me.status).toBe(200);
    expect(JSON.parse(me.body)).toMatchObject({
      mappings: [{ partnerId: partner.partnerId, partnerUid: 'u-alice', region: 'KR' }],
    });
  });

  it('a second login of the same person reuses the account and re-connecting the pair is idempotent', async () => {
    const first = await loginAtPartner(new TestBrowser(ctx), partner.partnerId, 'bob');
    const firstConnect = await partnerCall(ctx, partner, {
      method: 'POST',
      url: '/v1/mission-users/connect',
      body: { token: first.searchParams.get('token'), partnerUid: 'u-bob', region: 'JP' },
    });
    expect(firstConnect.statusCode).toBe(200);
    const second = await loginAtPartner(new TestBrowser(ctx), partner.partnerId, 'bob');
    const again = await partnerCall(ctx, partner, {
      method: 'POST',
      url: '/v1/mission-users/connect',
      body: { token: second.searchParams.get('token'), partnerUid: 'u-bob', region: 'TW' },
    });
    expect(again.statusCode).toBe(200);
    const accounts = await ctx.database.db
      .selectFrom('platform_accounts')
      .select('id')
      .where('subject', '=', 'bob')
      .execute();
    expect(accounts).toHaveLength(1);
    const mappings = await ctx.database.db
      .selectFrom('user_mappings')
      .selectAll()
      .where('partner_uid', '=', 'u-bob')
      .execute();
    expect(mappings).toHaveLength(1);
    expect(mappings[0]?.region).toBe('TW');
  });

  it('the mission page login returns to the path asked for with a session', async () => {
    const browser = new TestBrowser(ctx);
    const start = await browser.follow(
      `${APP_ORIGIN}/v1/login?returnTo=${encodeURIComponent('/app?tab=rewards')}`,
    );
    const { login } = loginFormAction(start.hops.at(-1)!);
    const posted = await browser.request('POST', login, { form: { username: 'carol' } });
    const back = await browser.follow(
      posted.location as string,
      (next) => new URL(next).origin === APP_ORIGIN && new URL(next).pathname === '/app',
    );
    expect(back.next).toBe(`${APP_ORIGIN}/app?tab=rewards`);
    const me = await browser.request('GET', `${APP_ORIGIN}/v1/me`, { accept: 'application/json' });
    expect(me.status).toBe(200);
    expect(JSON.parse(me.body)).toMatchObject({ displayName: 'carol', mappings: [] });

    const out = await browser.request('POST', `${APP_ORIGIN}/v1/logout`);
    expect(out.status).toBe(204);
    const after = await browser.request('GET', `${APP_ORIGIN}/v1/me`, { accept: 'application/json' });
    expect(after.status).toBe(401);
  });
});
