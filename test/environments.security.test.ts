// Preview and Production (docs/environments.md): keys carry their environment in their prefix; a
// key of the other environment is refused with 401 before any lookup, saying which it is; keys
// issued before environments keep working; the OpenAPI servers list both base addresses; the pages
// learn the environment from GET /v1/environment.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { ConfigError, loadConfig } from '../src/config.ts';
import { sha256Hex } from '../src/domain/ids.ts';
import { partnerCall, setupMission, startTestApp } from './harness.ts';
import type { MissionSetup, TestContext } from './harness.ts';

const PRODUCTION = {
  NODE_ENV: 'production',
  SERVICE_ENVIRONMENT: 'production',
  LOGIN_OIDC_ISSUER: 'https://access.line.me',
  LOGIN_OIDC_CLIENT_ID: '1234567890',
  LOGIN_OIDC_CLIENT_SECRET: 'secret',
  PUBLIC_BASE_URL: 'https://api.rewards.example',
  PUBLIC_BASE_URL_PREVIEW: 'https://preview-api.rewards.example',
};

let preview: TestContext;
let production: TestContext;
let previewSetup: MissionSetup;
let productionSetup: MissionSetup;

beforeAll(async () => {
  preview = await startTestApp();
  production = await startTestApp({ env: PRODUCTION });
  previewSetup = await setupMission(preview);
  productionSetup = await setupMission(production);
});
afterAll(async () => {
  await preview?.close();
  await production?.close();
});

const achieve = (ctx: TestContext, setup: Pick<MissionSetup, 'partnerId' | 'apiKey' | 'missionKey'>) =>
  partnerCall(ctx, setup, {
    method: 'POST',
    url: '/v1/achieve',
    body: { partnerUid: 'u1', missionKey: setup.missionKey, completed: false },
  });

const randomPart = () => randomBytes(32).toString('base64url');

describe('keys carry their environment', () => {
  it('preview issues mrk_test_ keys and production mrk_live_ keys; each works at home', async () => {
    expect(previewSetup.apiKey).toMatch(/^mrk_test_[A-Za-z0-9_-]{43}$/);
    expect(productionSetup.apiKey).toMatch(/^mrk_live_[A-Za-z0-9_-]{43}$/);
    expect((await achieve(preview, previewSetup)).statusCode).toBe(200);
    expect((await achieve(production, productionSetup)).statusCode).toBe(200);
  });

  it('a preview key sent to production: 401 API_KEY_WRONG_ENVIRONMENT saying so', async () => {
    const response = await achieve(production, { ...productionSetup, apiKey: previewSetup.apiKey });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ code: 3950, name: 'API_KEY_WRONG_ENVIRONMENT' });
    expect(response.json().message).toMatch(/preview \(mrk_test_\) API key sent to production/);
  });

  it('a production key sent to preview: 401 saying so', async () => {
    const response = await achieve(preview, { ...previewSetup, apiKey: productionSetup.apiKey });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ code: 3950 });
    expect(response.json().message).toMatch(/production \(mrk_live_\) API key sent to preview/);
  });

  it('is decided from the prefix before any lookup: an unknown partner id gets the same answer', async () => {
    const response = await achieve(production, {
      partnerId: 'ptn_nobody',
      apiKey: `mrk_test_${randomPart()}`,
      missionKey: 'x',
    });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ code: 3950 });
    // A key of the right environment with an unknown partner is the usual refusal.
    const usual = await achieve(production, {
      partnerId: 'ptn_nobody',
      apiKey: `mrk_live_${randomPart()}`,
      missionKey: 'x',
    });
    expect(usual.json()).toMatchObject({ code: 3100, name: 'PARTNER_UNAUTHORIZED' });
  });

  it('a key issued before environments (mrk_ and 43 characters) keeps working where it was issued', async () => {
    for (const [ctx, setup] of [
      [preview, previewSetup],
      [production, productionSetup],
    ] as const) {
      // 'mrk_live_…' or 'mrk_test_…' inside an old key is chance, not an environment: length tells them apart.
      const legacy = `mrk_${ctx === preview ? 'live' : 'test'}_${randomPart().slice(0, 38)}`;
      expect(legacy).toHaveLength(47);
      await ctx.database.db
        .insertInto('partner_api_keys')
        .values({
          id: `key_${randomPart().slice(0, 12)}`,
          partner_id: setup.partnerId,
          key_hash: sha256Hex(legacy),
          key_prefix: legacy.slice(0, 10),
          name: 'legacy',
        })
        .execute();
      await ctx.app.deps.caches.flushEverywhere();
      expect((await achieve(ctx, { ...setup, apiKey: legacy })).statusCode).toBe(200);
    }
  });
});

describe('the deployment tells its environment', () => {
  it('GET /v1/environment answers preview or production, without credentials', async () => {
    expect((await preview.app.inject({ method: 'GET', url: '/v1/environment' })).json()).toEqual({
      environment: 'preview',
    });
    expect((await production.app.inject({ method: 'GET', url: '/v1/environment' })).json()).toEqual({
      environment: 'production',
    });
  });

  it('the OpenAPI document lists both base addresses, this deployment first', async () => {
    const servers = (await production.app.inject({ method: 'GET', url: '/openapi.json' })).json().servers;
    expect(servers).toEqual([
      { url: 'https://api.rewards.example', description: 'Production (mrk_live_ keys)' },
      { url: 'https://preview-api.rewards.example', description: 'Preview (mrk_test_ keys)' },
    ]);
    const local = (await preview.app.inject({ method: 'GET', url: '/openapi.json' })).json().servers;
    expect(local[0]).toMatchObject({ url: 'http://localhost:8080', description: 'Preview (mrk_test_ keys)' });
  });
});

describe('configuration', () => {
  it('defaults to preview; production needs NODE_ENV=production; other values stop start-up naming the variable', () => {
    expect(loadConfig({}).serviceEnvironment).toBe('preview');
    expect(() => loadConfig({ SERVICE_ENVIRONMENT: 'production' })).toThrow(ConfigError);
    expect(() => loadConfig({ SERVICE_ENVIRONMENT: 'production' })).toThrow(
      /SERVICE_ENVIRONMENT.*NODE_ENV=production/,
    );
    expect(() => loadConfig({ SERVICE_ENVIRONMENT: 'staging' })).toThrow(/SERVICE_ENVIRONMENT/);
    expect(() => loadConfig({ PUBLIC_BASE_URL_PRODUCTION: 'not a url' })).toThrow(
      /PUBLIC_BASE_URL_PRODUCTION/,
    );
    const both = loadConfig({
      PUBLIC_BASE_URL_PREVIEW: 'https://preview.example/',
      PUBLIC_BASE_URL_PRODUCTION: 'https://live.example',
    });
    expect(both.environmentBaseUrls).toEqual({
      preview: 'https://preview.example',
      production: 'https://live.example',
    });
  });
});
