// The default set-up: no LOGIN_OIDC_ISSUER, so the service mounts its own development provider
// under /dev-oidc and the whole journey works with nothing else running. Production refuses it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';
import { partnerCall, startTestApp } from './harness.ts';
import type { TestContext } from './harness.ts';
import {
  APP_ORIGIN,
  authUrl,
  createLinkingPartner,
  loginAtPartner,
  loginFormAction,
  PARTNER_REDIRECT,
  TestBrowser,
} from './login-helpers.ts';

let ctx: TestContext;

beforeAll(async () => {
  ctx = await startTestApp({
    env: { PUBLIC_BASE_URL: APP_ORIGIN },
    now: new Date().toISOString(),
    captureLogs: true,
  });
});
afterAll(async () => {
  await ctx?.close();
});

describe('embedded development login', () => {
  it('publishes its discovery document under /dev-oidc', async () => {
    const response = await ctx.app.inject({
      method: 'GET',
      url: '/dev-oidc/.well-known/openid-configuration',
      headers: { host: 'app.test' },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      issuer: `${APP_ORIGIN}/dev-oidc`,
      code_challenge_methods_supported: ['S256'],
    });
  });

  it('says it is for development, on the page and in the logs', async () => {
    const browser = new TestBrowser(ctx);
    const partner = await createLinkingPartner(ctx);
    const page = (await browser.follow(authUrl(partner.partnerId, PARTNER_REDIRECT))).hops.at(-1)!;
    expect(page.status).toBe(200);
    expect(page.body).toContain('Development only');
    expect(page.body).toContain('<label for="username">');
    expect(
      ctx.logs.some((line) => line.level === 40 && String(line.msg).includes('DEVELOPMENT login provider')),
    ).toBe(true);
  });

  it('links a user end to end with nothing but this service', async () => {
    const partner = await createLinkingPartner(ctx);
    const landed = await loginAtPartner(new TestBrowser(ctx), partner.partnerId, 'dev-user');
    const token = landed.searchParams.get('token');
    expect(token).toMatch(/^mtk_/);
    const connected = await partnerCall(ctx, partner, {
      method: 'POST',
      url: '/v1/mission-users/connect',
      body: { token, partnerUid: 'u-dev', region: 'KR' },
    });
    expect(connected.statusCode).toBe(200);
    const check = await partnerCall(ctx, partner, {
      method: 'GET',
      url: '/v1/mission-users?partnerUid=u-dev',
    });
    expect(check.json()).toEqual({ result: true });
  });

  it('refuses an invalid user name on its page', async () => {
    const browser = new TestBrowser(ctx);
    const partner = await createLinkingPartner(ctx);
    const page = (await browser.follow(authUrl(partner.partnerId, PARTNER_REDIRECT))).hops.at(-1)!;
    const posted = await browser.request('POST', loginFormAction(page).login, {
      form: { username: '<script>' },
    });
    expect(posted.status).toBe(400);
    expect(posted.body).not.toContain('<script>');
    expect(posted.body).toContain('A user name is');
  });
});

describe('configuration', () => {
  const production = { NODE_ENV: 'production', PUBLIC_BASE_URL: 'https://rewards.example' };

  it('production refuses to start with the embedded login', () => {
    expect(() => loadConfig(production)).toThrow(ConfigError);
    expect(() => loadConfig(production)).toThrow(/LOGIN_OIDC_ISSUER/);
  });

  it('a configured issuer needs its client id and secret; LINE gets its documented parameters', () => {
    expect(() => loadConfig({ ...production, LOGIN_OIDC_ISSUER: 'https://access.line.me' })).toThrow(
      /LOGIN_OIDC_CLIENT_ID/,
    );
    const config = loadConfig({
      ...production,
      LOGIN_OIDC_ISSUER: 'https://access.line.me',
      LOGIN_OIDC_CLIENT_ID: '1234567890',
      LOGIN_OIDC_CLIENT_SECRET: 'secret',
    });
    expect(config.login.idTokenAlg).toBe('HS256');
    expect(config.login.params).toEqual({ MINI: {}, LIFF: {}, WEB: { disable_auto_login: 'true' } });
    const custom = loadConfig({
      ...production,
      LOGIN_OIDC_ISSUER: 'https://access.line.me',
      LOGIN_OIDC_CLIENT_ID: '1',
      LOGIN_OIDC_CLIENT_SECRET: 's',
      LOGIN_PARAMS_WEB: 'initial_amr_display=lineqr&ui_locales=ja',
      LOGIN_PARAMS_MINI: 'bot_prompt=normal',
    });
    expect(custom.login.params.WEB).toEqual({ initial_amr_display: 'lineqr', ui_locales: 'ja' });
    expect(custom.login.params.MINI).toEqual({ bot_prompt: 'normal' });
    expect(() =>
      loadConfig({
        ...production,
        LOGIN_OIDC_ISSUER: 'https://access.line.me',
        LOGIN_OIDC_CLIENT_ID: '1',
        LOGIN_OIDC_CLIENT_SECRET: 's',
        LOGIN_OIDC_ID_TOKEN_ALG: 'none',
      }),
    ).toThrow(/LOGIN_OIDC_ID_TOKEN_ALG/);
  });
});
