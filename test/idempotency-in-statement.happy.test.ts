// A progress report's Idempotency-Key is claimed and answered in the report's own upsert statement
// (src/idempotency/claim-in-statement.ts, docs/idempotency.md "In the operation's statement"): the
// key row is written DONE with the report's answer together with the record, or neither is; a key
// that is held or used writes no record, and its request is answered the usual way. On PGlite and
// on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createAsset, partnerCall, rewardedMission, setupMission, startTestApp } from './harness.ts';
import { linkUsers } from './link-users.ts';
import type { MissionSetup, TestContext } from './harness.ts';
import { upsertProgressBatch } from '../src/progress/store.ts';
import type { ProgressReport } from '../src/progress/store.ts';
import type { AnsweredClaim } from '../src/idempotency/claim-in-statement.ts';
import { requestFingerprint } from '../src/idempotency/request-key.ts';

let ctx: TestContext;
let setup: MissionSetup;

beforeAll(async () => {
  ctx = await startTestApp();
  setup = await setupMission(ctx, { missionKey: 'in-statement' });
});
afterAll(() => ctx.close());

const SCOPE = 'partner:in-statement';
const saved = { status: 200, headers: {}, body: null };

const claimOf = (key: string, fingerprint = `fp-${key}`): AnsweredClaim => {
  const now = new Date();
  return {
    scope: SCOPE,
    key,
    fingerprint,
    owner: `owner-${key}`,
    now,
    expiresAt: new Date(now.getTime() + 3_600_000),
    answer: saved,
  };
};

const reportOf = (
  partnerUid: string,
  claim?: AnsweredClaim,
  missionId = setup.missionId,
): ProgressReport => ({
  partnerId: setup.partnerId,
  partnerUid,
  missionId,
  periodKey: '2026-11-25',
  completed: false,
  target: null,
  defaultTarget: null,
  current: 1,
  now: new Date(),
  completionMarker: `marker-${partnerUid}`,
  ...(claim && { claim }),
});

async function keyRow(scope: string, key: string) {
  const { rows } = await sql<{
    state: string;
    owner: string;
    response_status: number | null;
    response_body: string | null;
  }>`
    SELECT state, owner, response_status, response_body FROM idempotency_keys WHERE scope = ${scope} AND key = ${key}`.execute(
    ctx.database.db,
  );
  return rows[0];
}

async function reportsOf(partnerUid: string): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    SELECT coalesce(sum(report_count), 0)::int AS n FROM mission_progress
     WHERE partner_id = ${setup.partnerId} AND partner_uid = ${partnerUid}`.execute(ctx.database.db);
  return Number(rows[0]?.n);
}

describe('the upsert claims the keys of its reports', () => {
  it('a new key is written DONE with the answer, with the record, in one statement', async () => {
    const claim = claimOf('new-1');
    const [result] = await upsertProgressBatch(ctx.database.db, [reportOf('s1', claim)]);
    expect(result).toEqual({ newlyCompleted: false, keyTaken: true });
    expect(await keyRow(SCOPE, 'new-1')).toEqual({
      state: 'DONE',
      owner: 'owner-new-1',
      response_status: 200,
      response_body: null,
    });
    expect(await reportsOf('s1')).toBe(1);
  });

  it('a used key is not taken and its record is not written; the other reports of the batch are', async () => {
    await upsertProgressBatch(ctx.database.db, [reportOf('s2', claimOf('used-2'))]);
    const results = await upsertProgressBatch(ctx.database.db, [
      reportOf('s2', { ...claimOf('used-2'), owner: 'second' }),
      reportOf('s3'),
      reportOf('s4', claimOf('fresh-4')),
    ]);
    expect(results.map((r) => r.keyTaken)).toEqual([false, undefined, true]);
    expect(await reportsOf('s2')).toBe(1);
    expect(await reportsOf('s3')).toBe(1);
    expect(await reportsOf('s4')).toBe(1);
    expect((await keyRow(SCOPE, 'used-2'))?.owner).toBe('owner-used-2');
  });

  it('one key asked by two reports of a batch is taken for the first only', async () => {
    const results = await upsertProgressBatch(ctx.database.db, [
      reportOf('s5', claimOf('twice-5')),
      reportOf('s6', { ...claimOf('twice-5'), owner: 'other' }),
    ]);
    expect(results.map((r) => r.keyTaken)).toEqual([true, false]);
    expect(await reportsOf('s5')).toBe(1);
    expect(await reportsOf('s6')).toBe(0);
  });

  it('completing reports: only a report whose key was taken completes its period', async () => {
    await upsertProgressBatch(ctx.database.db, [reportOf('s9', claimOf('used-9'))]);
    const results = await upsertProgressBatch(ctx.database.db, [
      {
        ...reportOf('s9', { ...claimOf('used-9'), owner: 'again' }),
        completed: true,
        completionMarker: 'm-s9',
      },
      { ...reportOf('s10', claimOf('fresh-10')), completed: true, completionMarker: 'm-s10' },
    ]);
    expect(results).toEqual([
      { newlyCompleted: false, keyTaken: false },
      { newlyCompleted: true, keyTaken: true },
    ]);
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM mission_progress WHERE partner_id = ${setup.partnerId} AND completed`.execute(
      ctx.database.db,
    );
    expect(Number(rows[0]?.n)).toBe(1);
  });

  it('a batch that fails writes no key and no record (all or nothing)', async () => {
    // An unknown mission id breaks the records' foreign key: the whole statement rolls back.
    await expect(
      upsertProgressBatch(ctx.database.db, [
        reportOf('s7', claimOf('fail-7')),
        reportOf('s8', claimOf('fail-8'), 'no-such-mission'),
      ]),
    ).rejects.toThrow();
    expect(await keyRow(SCOPE, 'fail-7')).toBeUndefined();
    expect(await keyRow(SCOPE, 'fail-8')).toBeUndefined();
    expect(await reportsOf('s7')).toBe(0);
  });
});

describe('through POST /v1/achieve', () => {
  const achieve = (key: string, body: object) =>
    partnerCall(ctx, setup, {
      method: 'POST',
      url: '/v1/achieve',
      body: { missionKey: setup.missionKey, ...body },
      headers: { 'idempotency-key': key },
    });
  const scope = () => setup.partnerId;
  const fingerprintOf = (body: object) =>
    requestFingerprint('POST', '/v1/achieve', { missionKey: setup.missionKey, ...body });

  it('a keyed progress report stores its answer DONE, never RUNNING, and a repeat replays it', async () => {
    const first = await achieve('http-1', { partnerUid: 'h1', completed: false });
    expect(first.statusCode).toBe(200);
    expect(await keyRow(scope(), 'http-1')).toMatchObject({
      state: 'DONE',
      response_status: 200,
      response_body: null,
    });
    const again = await achieve('http-1', { partnerUid: 'h1', completed: false });
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers['content-type']).toBe(first.headers['content-type']);
    expect(again.body).toBe(first.body);
    expect(await reportsOf('h1')).toBe(1);
  });

  it('a key held by a running request: 409 and no record; after its lease lapsed, the same request takes it over', async () => {
    const body = { partnerUid: 'h2', completed: false };
    const now = ctx.clock.now();
    await sql`
      INSERT INTO idempotency_keys (scope, key, fingerprint, state, owner, locked_until, created_at, expires_at)
      VALUES (${scope()}, 'http-2', ${fingerprintOf(body)}, 'RUNNING', 'crashed', ${new Date(now.getTime() + 60_000)},
              ${now}, ${new Date(now.getTime() + 3_600_000)})`.execute(ctx.database.db);
    const held = await achieve('http-2', body);
    expect(held.statusCode).toBe(409);
    expect(held.json().name).toBe('IDEMPOTENCY_KEY_IN_USE');
    expect(await reportsOf('h2')).toBe(0);
    await sql`UPDATE idempotency_keys SET locked_until = ${new Date(now.getTime() - 1)} WHERE key = 'http-2'`.execute(
      ctx.database.db,
    );
    const takenOver = await achieve('http-2', body);
    expect(takenOver.statusCode).toBe(200);
    expect(takenOver.headers['idempotent-replayed']).toBeUndefined();
    expect(await keyRow(scope(), 'http-2')).toMatchObject({ state: 'DONE', response_status: 200 });
    expect((await keyRow(scope(), 'http-2'))?.owner).not.toBe('crashed');
    expect(await reportsOf('h2')).toBe(1);
  });

  it('the same key with another report: 422, and that report is not written', async () => {
    expect((await achieve('http-3', { partnerUid: 'h3', completed: false })).statusCode).toBe(200);
    const other = await achieve('http-3', { partnerUid: 'h4', completed: false });
    expect(other.statusCode).toBe(422);
    expect(other.json().name).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await reportsOf('h4')).toBe(0);
  });

  it('concurrent repeats of one keyed report write it once; every answer is a 200 or a 409', async () => {
    const body = { partnerUid: 'h5', completed: false, metadata: { current: 2 } };
    const answers = await Promise.all(Array.from({ length: 20 }, () => achieve('http-5', body)));
    const statuses = answers.map((a) => a.statusCode);
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    expect(
      answers.filter((a) => a.statusCode === 200 && a.headers['idempotent-replayed'] === undefined),
    ).toHaveLength(1);
    expect(await reportsOf('h5')).toBe(1);
  });
});

describe('a keyed completion', () => {
  const complete = (who: MissionSetup, key: string, partnerUid: string) =>
    partnerCall(ctx, who, {
      method: 'POST',
      url: '/v1/achieve',
      body: { missionKey: who.missionKey, partnerUid, completed: true },
      headers: { 'idempotency-key': key },
    });
  const claimsOf = async (budgetId: string) =>
    Number(
      (
        await sql<{ n: number }>`SELECT count(*)::int AS n FROM claims WHERE budget_id = ${budgetId}`.execute(
          ctx.database.db,
        )
      ).rows[0]?.n,
    );
  const remainingOf = async (budgetId: string) =>
    (await ctx.admin('GET', `/admin/v1/budgets/${budgetId}`)).json().remaining as string;

  it('FIXED reward (one statement): the key is stored DONE with the claim; a repeat replays and pays nothing more', async () => {
    const assetId = await createAsset(ctx, { symbol: 'KC1', name: 'Keyed', decimals: 0 });
    const mission = await rewardedMission(ctx, assetId, {
      missionKey: 'keyed-fixed',
      total: '100',
      amount: '10',
    });
    await linkUsers(ctx, mission.partnerId, ['c1']);
    const first = await complete(mission, 'done-1', 'c1');
    expect(first.statusCode).toBe(200);
    expect(await keyRow(mission.partnerId, 'done-1')).toMatchObject({
      state: 'DONE',
      response_status: 200,
    });
    const again = await complete(mission, 'done-1', 'c1');
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await claimsOf(mission.budgetId)).toBe(1);
    expect(await remainingOf(mission.budgetId)).toBe('90');
  });

  it('a budget with caps (the transaction): the key is stored with the claim, once', async () => {
    const assetId = await createAsset(ctx, { symbol: 'KC2', name: 'Keyed', decimals: 0 });
    const mission = await rewardedMission(ctx, assetId, {
      missionKey: 'keyed-capped',
      total: '100',
      amount: '10',
    });
    expect(
      (
        await ctx.admin('PUT', `/admin/v1/budgets/${mission.budgetId}/caps`, {
          perAccountPerDay: '50',
          perPartnerPerDay: null,
        })
      ).statusCode,
    ).toBe(200);
    await linkUsers(ctx, mission.partnerId, ['c2']);
    expect((await complete(mission, 'done-2', 'c2')).statusCode).toBe(200);
    expect(await keyRow(mission.partnerId, 'done-2')).toMatchObject({
      state: 'DONE',
      response_status: 200,
    });
    expect((await complete(mission, 'done-2', 'c2')).headers['idempotent-replayed']).toBe('true');
    expect(await claimsOf(mission.budgetId)).toBe(1);
    expect(await remainingOf(mission.budgetId)).toBe('90');
  });

  it('a mission without a reward: the key and the completed record, once', async () => {
    const mission = await setupMission(ctx, { missionKey: 'keyed-plain', recurrence: 'ONE_TIME' });
    expect((await complete(mission, 'done-3', 'c3')).statusCode).toBe(200);
    expect(await keyRow(mission.partnerId, 'done-3')).toMatchObject({
      state: 'DONE',
      response_status: 200,
    });
    const other = await complete(mission, 'done-3', 'c4');
    expect(other.json().name).toBe('IDEMPOTENCY_KEY_REUSED');
    const { rows } = await sql<{ uid: string; completed: boolean }>`
      SELECT partner_uid AS uid, completed FROM mission_progress WHERE partner_id = ${mission.partnerId} ORDER BY partner_uid`.execute(
      ctx.database.db,
    );
    expect(rows).toEqual([{ uid: 'c3', completed: true }]);
  });
});
