// The LIFF path: MINI and LIFF logins go to LINE's LIFF entry with the state; the entry page posts
// the ID token LINE gave it. The server side is tested with ID tokens signed by the test issuer's
// keys (ES256), by the channel secret (HS256), and by keys nobody trusts.
import { describe, expect, it } from 'vitest';
import { generateKeyPair, importJWK, SignJWT } from 'jose';
import { sha256Hex } from '../src/domain/ids.ts';
import { partnerCall, startTestApp } from './harness.ts';
import type { TestContext } from './harness.ts';
import {
  APP_ORIGIN,
  authUrl,
  CLIENT_ID,
  CLIENT_SECRET,
  createLinkingPartner,
  issuerEnv,
  PARTNER_REDIRECT,
  TestBrowser,
  useLoginApp,
} from './login-helpers.ts';
import type { LinkingPartner, TestIssuer } from './login-helpers.ts';

const LIFF_ID = '1234567890-AbCdEfGh';
let issuer: TestIssuer;
let ctx: TestContext;
let partner: LinkingPartner;
useLoginApp({ env: { LOGIN_LIFF_ID: LIFF_ID } }, (started) => ({ issuer, ctx, partner } = started));

async function liffState(browserType: 'MINI' | 'LIFF' = 'MINI'): Promise<{ state: string; entry: URL }> {
  const response = await new TestBrowser(ctx).request(
    'GET',
    authUrl(partner.partnerId, `${PARTNER_REDIRECT}?k=v`, browserType),
  );
  expect(response.status).toBe(302);
  const entry = new URL(response.location as string);
  return { state: entry.searchParams.get('state') as string, entry };
}

type Claims = Record<string, unknown>;

async function es256(claims: Claims, key?: Parameters<SignJWT['sign']>[0], alg = 'ES256'): Promise<string> {
  const signingKey = key ?? (await importJWK(issuer.provider.privateJwk, 'ES256'));
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ name: 'Liff User', ...claims })
    .setProtectedHeader({ alg, kid: alg === 'ES256' ? issuer.provider.privateJwk.kid : undefined })
    .setIssuer((claims.iss as string) ?? issuer.issuer)
    .setAudience((claims.aud as string) ?? CLIENT_ID)
    .setSubject((claims.sub as string) ?? 'U-liff-user')
    .setIssuedAt((claims.iat as number) ?? now)
    .setExpirationTime((claims.exp as number) ?? now + 600)
    .sign(signingKey);
}

function post(state: string, idToken: string) {
  return ctx.app.inject({ method: 'POST', url: '/v1/mission-users/auth/liff', payload: { state, idToken } });
}

describe('LIFF login', () => {
  it('MINI goes to miniapp.line.me and LIFF to liff.line.me with the state; WEB to the web login', async () => {
    const mini = await liffState('MINI');
    expect(`${mini.entry.origin}${mini.entry.pathname}`).toBe(`https://miniapp.line.me/${LIFF_ID}`);
    expect(mini.state).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const liff = await liffState('LIFF');
    expect(`${liff.entry.origin}${liff.entry.pathname}`).toBe(`https://liff.line.me/${LIFF_ID}`);
    const web = await new TestBrowser(ctx).request(
      'GET',
      authUrl(partner.partnerId, PARTNER_REDIRECT, 'WEB'),
    );
    expect(new URL(web.location as string).origin).toBe(issuer.issuer);
  });

  it('serves the entry page with the LIFF SDK and the LIFF id', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: '/v1/mission-users/auth/liff?state=x' });
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain('static.line-scdn.net/liff/edge/2/sdk.js');
    expect(response.body).toContain(JSON.stringify(LIFF_ID));
  });

  it('a valid ES256 ID token gets a mapping token that connects', async () => {
    const { state } = await liffState();
    const response = await post(state, await es256({ sub: 'U-es256' }));
    expect(response.statusCode).toBe(200);
    const back = new URL(response.json<{ redirectUrl: string }>().redirectUrl);
    expect(`${back.origin}${back.pathname}`).toBe(PARTNER_REDIRECT);
    expect(back.searchParams.get('k')).toBe('v');
    const token = back.searchParams.get('token');
    const connected = await partnerCall(ctx, partner, {
      method: 'POST',
      url: '/v1/mission-users/connect',
      body: { token, partnerUid: 'u-liff', region: 'TW' },
    });
    expect(connected.statusCode).toBe(200);
    const mapping = await ctx.admin('GET', `/admin/v1/partners/${partner.partnerId}/users/u-liff/mapping`);
    expect(mapping.json().account).toMatchObject({ subject: 'U-es256', displayName: 'Liff User' });
    // The state is single use.
    const again = await post(state, await es256({ sub: 'U-es256' }));
    expect(again.statusCode).toBe(400);
    expect(again.json().name).toBe('LOGIN_STATE_INVALID');
  });

  it('a web-login token signed HS256 with the channel secret is accepted', async () => {
    const { state } = await liffState('LIFF');
    const response = await post(
      state,
      await es256({ sub: 'U-hs256' }, new TextEncoder().encode(CLIENT_SECRET), 'HS256'),
    );
    expect(response.statusCode).toBe(200);
    expect(new URL(response.json<{ redirectUrl: string }>().redirectUrl).searchParams.get('token')).toMatch(
      /^mtk_/,
    );
  });

  it("a token whose nonce is present must carry this login's nonce", async () => {
    const { state } = await liffState();
    const response = await post(state, await es256({ nonce: 'nonce-of-another-login' }));
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ name: 'ID_TOKEN_INVALID' });
    expect(response.json().message).toContain('nonce');
  });

  const bad: Array<[string, () => Promise<string>, RegExp]> = [
    [
      'expired',
      () => es256({ iat: Math.floor(Date.now() / 1000) - 7200, exp: Math.floor(Date.now() / 1000) - 3600 }),
      /exp/,
    ],
    ['for another audience', () => es256({ aud: 'another-channel' }), /aud/],
    ['from another issuer', () => es256({ iss: 'https://access.line.me.evil.example' }), /iss/],
    [
      'signed by a key nobody trusts',
      async () => es256({}, (await generateKeyPair('ES256')).privateKey),
      /signature/,
    ],
    [
      'HS256 with a wrong secret',
      () => es256({}, new TextEncoder().encode('not-the-channel-secret-0123456789'), 'HS256'),
      /signature/,
    ],
    [
      'unsigned (alg none)',
      async () =>
        `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify({ iss: issuer.issuer, aud: CLIENT_ID, sub: 'x', exp: 9999999999, iat: 1 })).toString('base64url')}.`,
      /./,
    ],
    ['garbage', async () => 'not.a.jwt', /./],
  ];
  it.each(bad)('a token %s is 401 and issues nothing', async (_label, make, reason) => {
    const { state } = await liffState();
    const before = await ctx.database.db.selectFrom('mapping_tokens').select('token_hash').execute();
    const response = await post(state, await make());
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ code: 3404, name: 'ID_TOKEN_INVALID' });
    expect(response.json().message).toMatch(reason);
    const after = await ctx.database.db.selectFrom('mapping_tokens').select('token_hash').execute();
    expect(after).toHaveLength(before.length);
  });

  it('a state from a web login cannot be finished through the LIFF page', async () => {
    const web = await new TestBrowser(ctx).request(
      'GET',
      authUrl(partner.partnerId, PARTNER_REDIRECT, 'WEB'),
    );
    const state = new URL(web.location as string).searchParams.get('state') as string;
    const response = await post(state, await es256({}));
    expect(response.statusCode).toBe(400);
    expect(response.json().name).toBe('LOGIN_STATE_INVALID');
    // Checked, not consumed: the web login is still there for the browser that started it.
    const kept = await ctx.database.db
      .selectFrom('login_states')
      .select('state_hash')
      .where('state_hash', '=', sha256Hex(state))
      .execute();
    expect(kept).toHaveLength(1);
  });

  it('without LOGIN_LIFF_ID the LIFF routes answer 404 and MINI uses the web login', async () => {
    const plain = await startTestApp({ env: issuerEnv(issuer), now: new Date().toISOString() });
    try {
      const page = await plain.app.inject({ method: 'GET', url: '/v1/mission-users/auth/liff' });
      expect(page.statusCode).toBe(404);
      expect(page.json().name).toBe('LIFF_NOT_CONFIGURED');
      const p = await createLinkingPartner(plain);
      const mini = await plain.app.inject({
        method: 'GET',
        url: authUrl(p.partnerId, PARTNER_REDIRECT, 'MINI').slice(APP_ORIGIN.length),
      });
      expect(new URL(mini.headers.location as string).origin).toBe(issuer.issuer);
    } finally {
      await plain.close();
    }
  });
});
