// Idempotency keys refused or in conflict: bad keys (400), a key reused with another request (422),
// a repeat while the first still runs (409), a key on an operation whose answer holds a secret
// (400); and what does not pin a key: a request refused before it ran, or one that ended in a 5xx.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { partnerCall, setupMission, startTestApp } from './harness.ts';
import type { MissionSetup, TestContext } from './harness.ts';
import { requestFingerprint } from '../src/idempotency/request-key.ts';

let ctx: TestContext;
let setup: MissionSetup;

beforeAll(async () => {
  ctx = await startTestApp();
  setup = await setupMission(ctx);
});
afterAll(() => ctx.close());

const achieve = (key: string | string[], body: object, headers: Record<string, string> = {}) =>
  ctx.app.inject({
    method: 'POST',
    url: '/v1/achieve',
    remoteAddress: '127.0.0.1',
    headers: {
      'x-partner-id': setup.partnerId,
      'x-api-key': setup.apiKey,
      'idempotency-key': key,
      ...headers,
    },
    payload: { missionKey: setup.missionKey, ...body },
  });

const keyRows = async () =>
  Number(
    (await sql<{ n: number }>`SELECT count(*)::int AS n FROM idempotency_keys`.execute(ctx.database.db))
      .rows[0]?.n,
  );

describe('bad keys', () => {
  it.each([
    ['empty', ''],
    ['too long', 'k'.repeat(256)],
    ['with a space', 'a b'],
    ['with a comma', 'a,b'],
    ['with a backslash', 'a\\b'],
    ['an empty quoted string', '""'],
    ['non-ASCII', 'clé'],
  ])('%s: 400 IDEMPOTENCY_KEY_INVALID, nothing stored or run', async (_label, key) => {
    const before = await keyRows();
    const response = await achieve(encodeHeader(key), { partnerUid: 'bad-key', completed: false });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 3900, name: 'IDEMPOTENCY_KEY_INVALID' });
    expect(typeof response.json().message).toBe('string');
    expect(await keyRows()).toBe(before);
  });

  it('two Idempotency-Key headers: 400', async () => {
    const response = await achieve(['one', 'two'], { partnerUid: 'bad-key', completed: false });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 3900 });
  });

  it('255 characters is accepted', async () => {
    expect((await achieve('k'.repeat(255), { partnerUid: 'long-key', completed: false })).statusCode).toBe(
      200,
    );
  });
});

// light-my-request refuses raw non-latin1 header values; send them as latin1 bytes as a client would.
function encodeHeader(value: string): string {
  return Buffer.from(value, 'utf8').toString('latin1');
}

describe('a key reused with another request', () => {
  it('another body: 422 IDEMPOTENCY_KEY_REUSED, and the first answer is still replayed', async () => {
    expect((await achieve('reuse-1', { partnerUid: 'r1', completed: false })).statusCode).toBe(200);
    const other = await achieve('reuse-1', { partnerUid: 'r2', completed: false });
    expect(other.statusCode).toBe(422);
    expect(other.json()).toMatchObject({ code: 3901, name: 'IDEMPOTENCY_KEY_REUSED' });
    const progress = await ctx.admin('GET', `/admin/v1/partners/${setup.partnerId}/users/r2/progress`);
    expect(progress.json().items).toEqual([]);
    const same = await achieve('reuse-1', { partnerUid: 'r1', completed: false });
    expect(same.headers['idempotent-replayed']).toBe('true');
  });

  it('another operation (connect with an achieve key): 422', async () => {
    const connect = await partnerCall(ctx, setup, {
      method: 'POST',
      url: '/v1/mission-users/connect',
      body: { token: 'whatever', partnerUid: 'r1', region: 'KR' },
      headers: { 'idempotency-key': 'reuse-1' },
    });
    expect(connect.statusCode).toBe(422);
    expect(connect.json()).toMatchObject({ code: 3901 });
  });
});

describe('refused before it ran: the key stays free', () => {
  it('a body that fails validation (400) does not pin the key', async () => {
    const invalid = await achieve('pre-1', { partnerUid: 'p1', completed: 'yes' });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json()).toMatchObject({ name: 'VALIDATION_FAILED' });
    const valid = await achieve('pre-1', { partnerUid: 'p1', completed: false });
    expect(valid.statusCode).toBe(200);
    expect(valid.headers['idempotent-replayed']).toBeUndefined();
  });

  it('bad credentials (401) and a foreign address (403) do not pin the key', async () => {
    const unauthorized = await achieve(
      'pre-2',
      { partnerUid: 'p2', completed: false },
      { 'x-api-key': 'mrk_wrong' },
    );
    expect(unauthorized.statusCode).toBe(401);
    const foreign = await ctx.app.inject({
      method: 'POST',
      url: '/v1/achieve',
      remoteAddress: '203.0.113.9',
      headers: { 'x-partner-id': setup.partnerId, 'x-api-key': setup.apiKey, 'idempotency-key': 'pre-2' },
      payload: { missionKey: setup.missionKey, partnerUid: 'p2', completed: false },
    });
    expect(foreign.statusCode).toBe(403);
    const valid = await achieve('pre-2', { partnerUid: 'p2', completed: false });
    expect(valid.statusCode).toBe(200);
    expect(valid.headers['idempotent-replayed']).toBeUndefined();
  });

  it('a 5xx does not pin the key: the repeat runs', async () => {
    // A real fault: the progress table is briefly unreachable, so the write fails with a 500.
    await sql`ALTER TABLE mission_progress RENAME TO mission_progress_away`.execute(ctx.database.db);
    let failed;
    try {
      failed = await achieve('fault-1', { partnerUid: 'f1', completed: false });
    } finally {
      await sql`ALTER TABLE mission_progress_away RENAME TO mission_progress`.execute(ctx.database.db);
    }
    expect(failed.statusCode).toBeGreaterThanOrEqual(500);
    expect(failed.json()).toHaveProperty('code');
    const retried = await achieve('fault-1', { partnerUid: 'f1', completed: false });
    expect(retried.statusCode).toBe(200);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
  });
});

describe('a repeat while the first still runs', () => {
  const body = { missionKey: 'daily-login', partnerUid: 'busy', completed: false };
  const seedRunning = async (lockedUntil: Date) => {
    const now = ctx.clock.now();
    await sql`
      INSERT INTO idempotency_keys (scope, key, fingerprint, state, owner, locked_until, created_at, expires_at)
      VALUES (${setup.partnerId}, 'busy-1', ${requestFingerprint('POST', '/v1/achieve', body)},
              'RUNNING', 'another-process', ${lockedUntil}, ${now}, ${new Date(now.getTime() + 86_400_000)})`.execute(
      ctx.database.db,
    );
  };

  it('answers 409 IDEMPOTENCY_KEY_IN_USE with Retry-After; once the holder is gone past its lease, the repeat runs', async () => {
    await seedRunning(new Date(ctx.clock.now().getTime() + 60_000));
    const busy = await achieve('busy-1', body);
    expect(busy.statusCode).toBe(409);
    expect(busy.json()).toMatchObject({ code: 3902, name: 'IDEMPOTENCY_KEY_IN_USE' });
    expect(busy.headers['retry-after']).toBe('1');
    // A different request with the key is still a 422, not a take-over.
    ctx.clock.advance(61_000);
    expect((await achieve('busy-1', { ...body, partnerUid: 'someone-else' })).statusCode).toBe(422);
    const taken = await achieve('busy-1', body);
    expect(taken.statusCode).toBe(200);
    expect((await achieve('busy-1', body)).headers['idempotent-replayed']).toBe('true');
  });
});

describe('operations whose answer holds a secret', () => {
  it('issuing an API key with an Idempotency-Key: 400 IDEMPOTENCY_KEY_NOT_ACCEPTED, and no key is issued', async () => {
    const before = (await ctx.admin('GET', `/admin/v1/partners/${setup.partnerId}/api-keys`)).json().items
      .length;
    const response = await ctx.app.inject({
      method: 'POST',
      url: `/admin/v1/partners/${setup.partnerId}/api-keys`,
      headers: { authorization: 'Bearer test-owner-token-0123456789', 'idempotency-key': 'secret-1' },
      payload: {},
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 3903, name: 'IDEMPOTENCY_KEY_NOT_ACCEPTED' });
    expect(
      (await ctx.admin('GET', `/admin/v1/partners/${setup.partnerId}/api-keys`)).json().items,
    ).toHaveLength(before);
  });
});
