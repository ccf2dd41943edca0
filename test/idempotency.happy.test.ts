// Idempotency keys that work: a repeat within 24 hours replays the first answer (marked
// Idempotent-Replayed) without running again, on achieve, connect-less partner calls and operator
// creates; keys are per partner and per operator credential; after 24 hours a key is free again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { ADMIN_TOKEN, partnerCall, setupMission, startTestApp } from './harness.ts';
import type { MissionSetup, TestContext } from './harness.ts';
import { purgeExpiredIdempotencyKeys } from '../src/idempotency/expiry-purge.ts';

let ctx: TestContext;
let setup: MissionSetup;
let other: MissionSetup;

beforeAll(async () => {
  ctx = await startTestApp();
  setup = await setupMission(ctx, { missionKey: 'daily-login' });
  other = await setupMission(ctx, { missionKey: 'daily-login' });
});
afterAll(() => ctx.close());

const achieve = (who: MissionSetup, key: string | undefined, body: object) =>
  partnerCall(ctx, who, {
    method: 'POST',
    url: '/v1/achieve',
    body: { missionKey: who.missionKey, ...body },
    ...(key !== undefined && { headers: { 'idempotency-key': key } }),
  });

const reportCount = async (who: MissionSetup, partnerUid: string): Promise<number> => {
  const items = (
    await ctx.admin('GET', `/admin/v1/partners/${who.partnerId}/users/${partnerUid}/progress`)
  ).json().items as Array<{ reportCount: number }>;
  // Summed over periods: the missions are DAILY, and one test moves the clock by a day.
  return items.reduce((sum, item) => sum + item.reportCount, 0);
};

const keyRows = async () =>
  Number(
    (await sql<{ n: number }>`SELECT count(*)::int AS n FROM idempotency_keys`.execute(ctx.database.db))
      .rows[0]?.n,
  );

describe('Idempotency-Key on achieve', () => {
  it('a repeat replays the first answer without running again', async () => {
    const first = await achieve(setup, 'key-1', { partnerUid: 'u1', completed: false });
    expect(first.statusCode).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await achieve(setup, 'key-1', { partnerUid: 'u1', completed: false });
    expect(again.statusCode).toBe(200);
    expect(again.body).toBe('');
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    expect(await reportCount(setup, 'u1')).toBe(1);
  });

  it('the same body in another key order or spacing, and the key quoted as the IETF draft writes it, is the same request', async () => {
    const first = await achieve(setup, 'key-2', {
      partnerUid: 'u2',
      completed: false,
      metadata: { current: 1 },
    });
    expect(first.statusCode).toBe(200);
    const reordered = await ctx.app.inject({
      method: 'POST',
      url: '/v1/achieve',
      remoteAddress: '127.0.0.1',
      headers: {
        'x-partner-id': setup.partnerId,
        'x-api-key': setup.apiKey,
        'content-type': 'application/json',
        'idempotency-key': '"key-2"',
      },
      payload: `{ "metadata": {"current": 1}, "completed": false,\n "missionKey": "${setup.missionKey}", "partnerUid": "u2" }`,
    });
    expect(reordered.statusCode).toBe(200);
    expect(reordered.headers['idempotent-replayed']).toBe('true');
    expect(await reportCount(setup, 'u2')).toBe(1);
  });

  it('a kept 4xx (an unknown mission) is replayed too', async () => {
    const first = await achieve(setup, 'key-404', { partnerUid: 'u3', completed: false, missionKey: 'nope' });
    expect(first.statusCode).toBe(404);
    const again = await achieve(setup, 'key-404', { partnerUid: 'u3', completed: false, missionKey: 'nope' });
    expect(again.statusCode).toBe(404);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers['content-type']).toMatch(/^application\/json/);
    expect(again.json()).toEqual(first.json());
    expect(again.json()).toMatchObject({ code: 1201, name: 'NOT_FOUND_MISSION' });
  });

  it('two partners use the same key independently', async () => {
    const a = await achieve(setup, 'shared-key', { partnerUid: 'same', completed: false });
    const b = await achieve(other, 'shared-key', { partnerUid: 'same', completed: true });
    expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
    expect(await reportCount(setup, 'same')).toBe(1);
    expect(await reportCount(other, 'same')).toBe(1);
  });

  it('after 24 hours the key is free again, and the purge removes expired keys', async () => {
    expect((await achieve(setup, 'key-day', { partnerUid: 'u4', completed: false })).statusCode).toBe(200);
    ctx.clock.advance(24 * 3600 * 1000 - 1000);
    const stillKept = await achieve(setup, 'key-day', { partnerUid: 'u4', completed: true });
    expect(stillKept.statusCode).toBe(422);
    ctx.clock.advance(1000);
    const fresh = await achieve(setup, 'key-day', { partnerUid: 'u4', completed: true });
    expect(fresh.statusCode).toBe(200);
    expect(fresh.headers['idempotent-replayed']).toBeUndefined();
    expect(await reportCount(setup, 'u4')).toBe(2);

    const before = await keyRows();
    const purged = await purgeExpiredIdempotencyKeys(ctx.database.db, ctx.clock.now());
    expect(purged).toBeGreaterThan(0);
    expect(await keyRows()).toBe(before - purged);
    // The key renewed a moment ago is still there and still replays.
    expect(
      (await achieve(setup, 'key-day', { partnerUid: 'u4', completed: true })).headers['idempotent-replayed'],
    ).toBe('true');
  });

  it('a request without the header writes no key', async () => {
    const before = await keyRows();
    expect((await achieve(setup, undefined, { partnerUid: 'u5', completed: false })).statusCode).toBe(200);
    expect((await achieve(setup, undefined, { partnerUid: 'u5', completed: false })).statusCode).toBe(200);
    expect(await keyRows()).toBe(before);
    expect(await reportCount(setup, 'u5')).toBe(2);
  });
});

describe('Idempotency-Key on operator creates', () => {
  const createPromotion = (key: string, token = ADMIN_TOKEN) =>
    ctx.app.inject({
      method: 'POST',
      url: '/admin/v1/promotions',
      headers: { authorization: `Bearer ${token}`, 'idempotency-key': key },
      payload: {
        partnerId: setup.partnerId,
        type: 'COMPOSITE',
        title: 'Keyed promotion',
        timezone: 'Asia/Seoul',
        startAt: '2026-01-01T00:00:00Z',
      },
    });
  const keyedPromotions = async () =>
    Number(
      (
        await sql<{
          n: number;
        }>`SELECT count(*)::int AS n FROM promotions WHERE title = 'Keyed promotion'`.execute(ctx.database.db)
      ).rows[0]?.n,
    );

  it('a repeated create answers the same 201 and creates one promotion', async () => {
    const first = await createPromotion('create-1');
    expect(first.statusCode).toBe(201);
    const again = await createPromotion('create-1');
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    expect(await keyedPromotions()).toBe(1);
  });

  it('keys are per operator credential', async () => {
    const credential = await ctx.admin('POST', '/admin/v1/admin-credentials', {
      name: 'second',
      role: 'OPERATOR',
    });
    expect(credential.statusCode).toBe(201);
    const secret = credential.json<{ secret: string }>().secret;
    const mine = await createPromotion('create-1', secret);
    expect(mine.statusCode).toBe(201);
    expect(mine.headers['idempotent-replayed']).toBeUndefined();
    expect(await keyedPromotions()).toBe(2);
  });

  it('the OpenAPI document shows the header on keyed operations only', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const headerOf = (path: string) =>
      ((doc.paths[path]?.post?.parameters ?? []) as Array<{ in: string; name: string }>).find(
        (p) => p.in === 'header' && p.name === 'idempotency-key',
      );
    expect(headerOf('/v1/achieve')).toBeDefined();
    expect(headerOf('/v1/mission-users/connect')).toBeDefined();
    expect(headerOf('/admin/v1/promotions')).toBeDefined();
    expect(headerOf('/admin/v1/partners/{partnerId}/api-keys')).toBeUndefined();
    expect(doc.paths['/v1/achieve'].post.responses['409']).toBeDefined();
  });
});
