// The partner SDK against the service listening on a real port: the link check, the linking journey
// (auth URL -> development login -> back with a token -> connect), progress and a completion, and
// the service's errors as typed PartnerApiError objects.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import type { App } from '../src/http/server.ts';
import {
  createPartnerClient,
  PartnerApiError,
  PartnerConnectionError,
  readLinkCallback,
} from '../packages/partner-sdk/src/index.ts';
import type { PartnerClient } from '../packages/partner-sdk/src/index.ts';
import {
  createSdkPartner,
  freePort,
  loginThroughBrowser,
  startListeningService,
} from './partner-sdk/service.ts';
import type { ListeningService, SdkPartner } from './partner-sdk/service.ts';

const PARTNER_ORIGIN = 'https://partner.example';
const REDIRECT_URL = `${PARTNER_ORIGIN}/linked`;

let service: ListeningService;
let partner: SdkPartner;
let client: PartnerClient;

beforeAll(async () => {
  service = await startListeningService();
  partner = await createSdkPartner(service.ctx, REDIRECT_URL);
  client = createPartnerClient({
    baseUrl: service.baseUrl,
    partnerId: partner.partnerId,
    apiKey: partner.apiKey,
  });
});
afterAll(async () => {
  await service?.close();
});

async function errorOf(promise: Promise<unknown>): Promise<PartnerApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof PartnerApiError))
    throw new Error(`expected a PartnerApiError, got ${String(error)}`);
  return error;
}

describe('partner SDK against the service', () => {
  it('links a user: auth URL, login, the token from the callback, connect, then isLinked is true', async () => {
    expect(await client.isLinked('u-alice')).toBe(false);

    const authUrl = client.authUrl({ redirectUrl: `${REDIRECT_URL}?from=app`, browserType: 'WEB' });
    expect(authUrl.startsWith(`${service.baseUrl}/v1/mission-users/auth?`)).toBe(true);
    const landed = await loginThroughBrowser(service.ctx, authUrl, 'alice', PARTNER_ORIGIN);
    expect(new URL(landed).searchParams.get('from')).toBe('app');

    const callback = readLinkCallback(landed);
    if (!callback.ok) throw new Error(`login failed: ${callback.error}`);
    expect(callback.token).toMatch(/^mtk_/);
    await client.connect({ token: callback.token, partnerUid: 'u-alice', region: 'KR' });

    expect(await client.isLinked('u-alice')).toBe(true);
    const mapping = await service.ctx.admin(
      'GET',
      `/admin/v1/partners/${partner.partnerId}/users/u-alice/mapping`,
    );
    expect(mapping.json()).toMatchObject({
      partnerUid: 'u-alice',
      region: 'KR',
      account: { subject: 'alice' },
    });

    // The token is single use: connecting again with it is a typed MAPPING_TOKEN_USED.
    const reused = await errorOf(
      client.connect({ token: callback.token, partnerUid: 'u-alice', region: 'KR' }),
    );
    expect(reused).toMatchObject({ name: 'MAPPING_TOKEN_USED', code: 3412, status: 409 });
  });

  it('reports progress and then a completion, which the service stores', async () => {
    await client.achieve({
      partnerUid: 'u-alice',
      missionKey: partner.missionKey,
      completed: false,
      metadata: { target: 10, current: 4 },
    });
    let progress = await service.ctx.admin(
      'GET',
      `/admin/v1/partners/${partner.partnerId}/users/u-alice/progress`,
    );
    expect(progress.json().items).toMatchObject([
      { missionKey: partner.missionKey, completed: false, current: 4 },
    ]);

    await client.achieve({
      partnerUid: 'u-alice',
      missionKey: partner.missionKey,
      completed: true,
      metadata: { target: 10, current: 10 },
    });
    progress = await service.ctx.admin(
      'GET',
      `/admin/v1/partners/${partner.partnerId}/users/u-alice/progress`,
    );
    expect(progress.json().items).toMatchObject([
      { missionKey: partner.missionKey, completed: true, current: 10 },
    ]);
  });

  it('a wrong API key is a PartnerApiError named PARTNER_UNAUTHORIZED, with the request id', async () => {
    const wrong = createPartnerClient({
      baseUrl: service.baseUrl,
      partnerId: partner.partnerId,
      apiKey: `${partner.apiKey}x`,
    });
    const error = await errorOf(wrong.isLinked('u-alice'));
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ status: 401, code: 3100, name: 'PARTNER_UNAUTHORIZED' });
    expect(error.message).not.toBe('');
    expect(error.requestId).toMatch(/.+/);
    const achieve = await errorOf(
      wrong.achieve({ partnerUid: 'u', missionKey: partner.missionKey, completed: true }),
    );
    expect(achieve.name).toBe('PARTNER_UNAUTHORIZED');
  });

  it('an unknown mission is NOT_FOUND_MISSION (1201), usable in a switch over error.name', async () => {
    const error = await errorOf(
      client.achieve({ partnerUid: 'u-alice', missionKey: 'no-such-mission', completed: true }),
    );
    expect(error).toMatchObject({ status: 404, code: 1201, name: 'NOT_FOUND_MISSION' });
    let handled: string;
    switch (error.name) {
      case 'NOT_FOUND_MISSION':
        handled = 'ask the operator for the mission key';
        break;
      case 'PARTNER_UNAUTHORIZED':
        handled = 'check the credentials';
        break;
      default:
        handled = 'unexpected';
    }
    expect(handled).toBe('ask the operator for the mission key');
  });

  it('a completion below the target and a bad region are typed too', async () => {
    const completion = await errorOf(
      client.achieve({
        partnerUid: 'u-bob',
        missionKey: partner.missionKey,
        completed: true,
        metadata: { current: 3 },
      }),
    );
    expect(completion).toMatchObject({ status: 422, name: 'INVALID_MISSION_COMPLETION', code: 3303 });
    const token = await errorOf(
      client.connect({ token: 'mtk_not-a-token', partnerUid: 'u-bob', region: 'KR' }),
    );
    expect(token).toMatchObject({ status: 400, name: 'MAPPING_TOKEN_INVALID', code: 3410 });
  });

  it('no service at the address is a PartnerConnectionError once maxElapsedMs is spent, saying how many attempts and why', async () => {
    const nowhere = createPartnerClient({
      baseUrl: `http://127.0.0.1:${await freePort()}`,
      partnerId: partner.partnerId,
      apiKey: partner.apiKey,
      // maxAttempts bounds answers worth a retry, not connections that got none.
      retry: { maxAttempts: 2, initialDelayMs: 10, maxElapsedMs: 500 },
    });
    const error = await nowhere.isLinked('u-alice').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PartnerConnectionError);
    const connection = error as PartnerConnectionError;
    expect(connection.attempts).toBeGreaterThan(2);
    expect(connection.code).toBe('ECONNREFUSED');
    expect((connection.cause as { code?: string }).code).toBe('ECONNREFUSED');
    expect(connection.message).toContain(`after ${connection.attempts} attempt(s)`);
    expect(connection.message).toContain('ECONNREFUSED');
  });

  it('a repeat with the same Idempotency-Key is answered as replayed', async () => {
    const report = { partnerUid: 'u-alice', missionKey: partner.missionKey, completed: false };
    const first = await client.achieve(report, { idempotencyKey: 'sdk-job-1' });
    const again = await client.achieve(report, { idempotencyKey: 'sdk-job-1' });
    expect(first).toMatchObject({ replayed: false, requestId: expect.any(String) });
    expect(again).toMatchObject({ replayed: true, requestId: expect.any(String) });
    const other = await client.achieve(report);
    expect(other.replayed).toBe(false);
  });

  it('a service restarting for 2 s does not fail the call: the connection is retried within maxElapsedMs', async () => {
    const { ctx } = service;
    const port = await freePort();
    const instance = () =>
      buildApp({
        config: { ...ctx.config, publicBaseUrl: `http://127.0.0.1:${port}` },
        database: ctx.database,
        clock: ctx.clock,
        logger: false,
      });
    const before = await instance();
    await before.listen({ host: '127.0.0.1', port });
    const restarting = createPartnerClient({
      baseUrl: `http://127.0.0.1:${port}`,
      partnerId: partner.partnerId,
      apiKey: partner.apiKey,
    });
    expect(await restarting.isLinked('u-alice')).toBe(true);
    await before.close();
    let after: App | undefined;
    const back = new Promise<void>((resolve) =>
      setTimeout(() => {
        void instance().then(async (app) => {
          after = app;
          await app.listen({ host: '127.0.0.1', port });
          resolve();
        });
      }, 2000),
    );
    try {
      // Refused for 2 s (more than the four attempts of the default policy took before), then answered.
      const result = await restarting.achieve({
        partnerUid: 'u-alice',
        missionKey: partner.missionKey,
        completed: false,
      });
      expect(result.replayed).toBe(false);
    } finally {
      await back;
      await after?.close();
    }
  });
});
