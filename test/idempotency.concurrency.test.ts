// 50 concurrent repeats of one Idempotency-Key on achieve (a completion with a FIXED reward for a
// linked user): exactly one run, one completion and one claim; every answer is the first answer
// (run or replayed) or a 409 while it still ran; none a 5xx. On PGlite and on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { partnerCall, setupMission, startTestApp } from './harness.ts';
import type { MissionSetup, TestContext } from './harness.ts';
import { linkUsers } from './link-users.ts';

let ctx: TestContext;
let setup: MissionSetup;
let budgetId: string;

beforeAll(async () => {
  ctx = await startTestApp();
  setup = await setupMission(ctx, { missionKey: 'one-time', recurrence: 'ONE_TIME' });
  const assetId = (
    await ctx.admin('POST', '/admin/v1/reward-assets', { symbol: 'PTS', name: 'Points', decimals: 0 })
  ).json().id;
  budgetId = (
    await ctx.admin('POST', '/admin/v1/budgets', { type: 'FIXED', assetId, name: 'b', total: '1000' })
  ).json().id;
  const reward = await ctx.admin('PUT', `/admin/v1/missions/${setup.missionId}/reward`, {
    type: 'FIXED',
    budgetId,
    amount: '10',
  });
  expect(reward.statusCode).toBe(200);
  await linkUsers(ctx, setup.partnerId, ['racer']);
});
afterAll(() => ctx.close());

describe('50 concurrent repeats of one key on achieve', () => {
  it('run once: one completion, one claim; each answer a replay of the first or a 409; no 5xx', async () => {
    const body = { partnerUid: 'racer', missionKey: setup.missionKey, completed: true };
    const responses = await Promise.all(
      Array.from({ length: 50 }, () =>
        partnerCall(ctx, setup, {
          method: 'POST',
          url: '/v1/achieve',
          body,
          headers: { 'idempotency-key': 'race-key' },
        }),
      ),
    );
    const statuses = responses.map((r) => r.statusCode);
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    const ran = responses.filter(
      (r) => r.statusCode === 200 && r.headers['idempotent-replayed'] === undefined,
    );
    expect(ran).toHaveLength(1);
    for (const r of responses.filter((r) => r.statusCode === 200)) expect(r.body).toBe('');
    for (const r of responses.filter((r) => r.statusCode === 409)) {
      expect(r.json()).toMatchObject({ code: 3902, name: 'IDEMPOTENCY_KEY_IN_USE' });
    }

    const progress = (
      await ctx.admin('GET', `/admin/v1/partners/${setup.partnerId}/users/racer/progress`)
    ).json().items;
    expect(progress).toHaveLength(1);
    expect(progress[0]).toMatchObject({ completed: true, reportCount: 1 });
    const claims = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM claims WHERE budget_id = ${budgetId}`.execute(ctx.database.db);
    expect(claims.rows[0]?.n).toBe(1);

    // Once the first has finished, every repeat is its replay.
    const after = await partnerCall(ctx, setup, {
      method: 'POST',
      url: '/v1/achieve',
      body,
      headers: { 'idempotency-key': 'race-key' },
    });
    expect(after.statusCode).toBe(200);
    expect(after.headers['idempotent-replayed']).toBe('true');
  });
});
