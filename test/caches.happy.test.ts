// The hot-path caches never outlive a change: a revoked key, a disabled partner or a deactivated
// promotion is refused at once by the process that made the change and within a second by every
// other process (PostgreSQL NOTIFY, with a one-second TTL behind it; the test gives the NOTIFY ten
// seconds on a process whose entries would live a minute, NOTIFY_BOUND_MS).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InjectOptions } from 'fastify';
import { partnerCall, setupMission, startSecondApp, startTestApp } from './harness.ts';
import type { MissionSetup, TestContext } from './harness.ts';
import type { App } from '../src/http/server.ts';
import { describeUnless, needsPostgres } from './requirements.ts';
import { newId, newSecret, sha256Hex } from '../src/domain/ids.ts';
import { KEY_PREFIXES } from '../src/partners/key-environment.ts';

let ctx: TestContext;

beforeAll(async () => {
  ctx = await startTestApp();
});
afterAll(async () => {
  await ctx?.close();
});

function callOn(
  app: App,
  setup: MissionSetup,
  options: { method: InjectOptions['method']; url: string; body?: unknown },
) {
  return app.inject({
    method: options.method,
    url: options.url,
    remoteAddress: '127.0.0.1',
    headers: { 'x-partner-id': setup.partnerId, 'x-api-key': setup.apiKey },
    ...(options.body !== undefined && { payload: options.body as InjectOptions['payload'] }),
  });
}

/** Polls until `check` holds; answers how long it took (ms), or fails after `limitMs`. */
/**
 * How soon another process must see an operator's write: a NOTIFY takes milliseconds on a quiet
 * machine, and without it the second process would serve its entries for their whole minute
 * (cacheTtlMs below). Ten seconds tells the two apart with room for a loaded CI machine, where a
 * 1 s bound is one slow inject away from failing.
 */
const NOTIFY_BOUND_MS = 10_000;

async function within(limitMs: number, check: () => Promise<boolean>): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < limitMs) {
    if (await check()) return performance.now() - started;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`not within ${limitMs} ms`);
}

describe('hot-path caches in one process', () => {
  it('a revoked key and a deactivated promotion are refused on the next call', async () => {
    const setup = await setupMission(ctx, { missionKey: 'cached' });
    const body = { partnerUid: 'c1', missionKey: 'cached', completed: false };
    expect((await partnerCall(ctx, setup, { method: 'POST', url: '/v1/achieve', body })).statusCode).toBe(
      200,
    );
    await ctx.admin('PATCH', `/admin/v1/promotions/${setup.promotionId}`, { status: 'INACTIVE' });
    expect((await partnerCall(ctx, setup, { method: 'POST', url: '/v1/achieve', body })).json().name).toBe(
      'PROMOTION_NOT_ACTIVE',
    );

    const keys = (await ctx.admin('GET', `/admin/v1/partners/${setup.partnerId}/api-keys`)).json().items;
    expect(
      (await partnerCall(ctx, setup, { method: 'GET', url: '/v1/mission-users?partnerUid=c1' })).statusCode,
    ).toBe(200);
    await ctx.admin('DELETE', `/admin/v1/partners/${setup.partnerId}/api-keys/${keys[0].id}`);
    expect(
      (await partnerCall(ctx, setup, { method: 'GET', url: '/v1/mission-users?partnerUid=c1' })).statusCode,
    ).toBe(401);
  });
});

describe('a key created through another process', () => {
  it('works at once, before the NOTIFY that clears the cached credentials without it arrives', async () => {
    const setup = await setupMission(ctx, { missionKey: 'new-key' });
    const url = '/v1/mission-users?partnerUid=k1';
    expect((await partnerCall(ctx, setup, { method: 'GET', url })).statusCode).toBe(200);
    // The partner's credentials are cached now. Another process creates a key: its row is in the
    // database, and this process has not been told (written past the operator API, which would clear
    // this process's cache at once).
    const apiKey = newSecret(KEY_PREFIXES.preview);
    await ctx.database.db
      .insertInto('partner_api_keys')
      .values({
        id: newId('key'),
        partner_id: setup.partnerId,
        key_hash: sha256Hex(apiKey),
        key_prefix: apiKey.slice(0, 13),
        name: 'made elsewhere',
        created_at: new Date(),
      })
      .execute();
    expect(
      (await partnerCall(ctx, { partnerId: setup.partnerId, apiKey }, { method: 'GET', url })).statusCode,
    ).toBe(200);
    // The old key is still good, and a wrong one is still refused.
    expect((await partnerCall(ctx, setup, { method: 'GET', url })).statusCode).toBe(200);
    expect(
      (await partnerCall(ctx, { partnerId: setup.partnerId, apiKey: `${apiKey}x` }, { method: 'GET', url }))
        .statusCode,
    ).toBe(401);
  });
});

describeUnless(needsPostgres('two processes share one database only on PostgreSQL'))(
  'hot-path caches across processes',
  () => {
    it('another process refuses a revoked key, a disabled partner and an inactive promotion long before its cache expires', async () => {
      // Entries that would live a minute: only the NOTIFY can make this process see the changes.
      const second = await startSecondApp(ctx, { cacheTtlMs: 60_000 });
      try {
        const setup = await setupMission(ctx, { missionKey: 'shared' });
        const body = { partnerUid: 's1', missionKey: 'shared', completed: false };
        // The second process has everything cached.
        expect(
          (await callOn(second.app, setup, { method: 'POST', url: '/v1/achieve', body })).statusCode,
        ).toBe(200);
        expect(
          (await callOn(second.app, setup, { method: 'GET', url: '/v1/mission-users?partnerUid=s1' }))
            .statusCode,
        ).toBe(200);

        await ctx.admin('PATCH', `/admin/v1/promotions/${setup.promotionId}`, { status: 'INACTIVE' });
        await within(
          NOTIFY_BOUND_MS,
          async () =>
            (await callOn(second.app, setup, { method: 'POST', url: '/v1/achieve', body })).statusCode ===
            409,
        );

        const keys = (await ctx.admin('GET', `/admin/v1/partners/${setup.partnerId}/api-keys`)).json().items;
        await ctx.admin('DELETE', `/admin/v1/partners/${setup.partnerId}/api-keys/${keys[0].id}`);
        await within(
          NOTIFY_BOUND_MS,
          async () =>
            (await callOn(second.app, setup, { method: 'GET', url: '/v1/mission-users?partnerUid=s1' }))
              .statusCode === 401,
        );
      } finally {
        await second.close();
      }
    });
  },
);
