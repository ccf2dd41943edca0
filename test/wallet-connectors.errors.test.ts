// The wallet connector settings (docs/wallets.md): the development wallet is on in development and
// refused with NODE_ENV=production; the Mini Dapp SDK needs both its client id and its script's
// address, https in production; GET /v1/me/wallet/connectors says what the page may offer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';
import { createAccount, sessionCookie, startTestApp } from './harness.ts';
import type { TestContext } from './harness.ts';

const production = {
  NODE_ENV: 'production',
  PUBLIC_BASE_URL: 'https://rewards.example',
  SESSION_SECRET: 's'.repeat(32),
  LOGIN_OIDC_ISSUER: 'https://access.line.me',
  LOGIN_OIDC_CLIENT_ID: '1234567890',
  LOGIN_OIDC_CLIENT_SECRET: 'secret',
};

describe('wallet connector settings', () => {
  it('the development wallet: on in development, off in production, and refused there when asked for', () => {
    expect(loadConfig({}).walletConnectors).toEqual({ miniDapp: undefined, devWallet: true });
    expect(loadConfig({ DEV_WALLET: 'false' }).walletConnectors.devWallet).toBe(false);
    expect(loadConfig(production).walletConnectors.devWallet).toBe(false);
    expect(() => loadConfig({ ...production, DEV_WALLET: 'true' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...production, DEV_WALLET: 'true' })).toThrow(
      /DEV_WALLET.*NODE_ENV=production/,
    );
  });

  it('the Mini Dapp SDK needs its client id and its address together; http only outside production', () => {
    expect(() => loadConfig({ MINI_DAPP_CLIENT_ID: 'abc' })).toThrow(/MINI_DAPP_SDK_URL/);
    expect(() => loadConfig({ MINI_DAPP_SDK_URL: 'https://cdn.example/sdk.js' })).toThrow(
      /MINI_DAPP_CLIENT_ID/,
    );
    expect(() => loadConfig({ MINI_DAPP_CLIENT_ID: 'a b', MINI_DAPP_SDK_URL: '/sdk.js' })).toThrow(
      /MINI_DAPP_CLIENT_ID/,
    );
    expect(
      loadConfig({ MINI_DAPP_CLIENT_ID: 'abc', MINI_DAPP_SDK_URL: '/vendor/sdk.js' }).walletConnectors
        .miniDapp,
    ).toEqual({ clientId: 'abc', sdkUrl: '/vendor/sdk.js' });
    expect(() =>
      loadConfig({
        ...production,
        MINI_DAPP_CLIENT_ID: 'abc',
        MINI_DAPP_SDK_URL: 'http://cdn.example/sdk.js',
      }),
    ).toThrow(/MINI_DAPP_SDK_URL/);
  });
});

describe('GET /v1/me/wallet/connectors', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await startTestApp({
      env: { MINI_DAPP_CLIENT_ID: 'client-1', MINI_DAPP_SDK_URL: 'https://static.kaiawallet.io/js/sdk.js' },
    });
  });
  afterAll(() => ctx.close());

  it('needs a session, and says what the page may offer and on which chain', async () => {
    const anonymous = await ctx.app.inject({ method: 'GET', url: '/v1/me/wallet/connectors' });
    expect(anonymous.json()).toMatchObject({ code: 3210 });
    const cookie = await sessionCookie(ctx, await createAccount(ctx));
    const answer = await ctx.app.inject({
      method: 'GET',
      url: '/v1/me/wallet/connectors',
      headers: { cookie },
    });
    expect(answer.json()).toEqual({
      chainId: null,
      injected: true,
      miniDapp: { clientId: 'client-1', sdkUrl: 'https://static.kaiawallet.io/js/sdk.js' },
      devWallet: true,
    });
    // The mission page may load the SDK from its origin, and no other script origin.
    const page = await ctx.app.inject({ method: 'GET', url: '/app' });
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toMatch(/script-src 'self' https:\/\/static\.kaiawallet\.io;/);
  });
});
