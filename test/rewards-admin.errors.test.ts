// Every rewards admin route refuses bad input with a 4xx and the error body, and changes nothing:
// each group of refusals compares every reward table before and after. VIEWER writes are 901.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { ADMIN_TOKEN, createAccount, partnerCall, setupMission, startTestApp } from './harness.ts';
import type { MissionSetup, TestContext } from './harness.ts';
import { runPayoutBatch } from '../src/payout/worker.ts';

let ctx: TestContext;
let setup: MissionSetup;
let assetId: string;
let rawAssetId: string;
let fixedBudget: string;
let luckyBudget: string;
let dailyCheckPromotion: string;
let dailyCheckGroup: string;

function ok<T = Record<string, unknown>>(response: LightMyRequestResponse, status = 200): T {
  expect(response.statusCode, response.body).toBe(status);
  return response.json<T>();
}

const REWARD_TABLES = [
  'reward_assets',
  'budgets',
  'budget_stripes',
  'reward_rules',
  'streak_rewards',
  'user_streaks',
  'claims',
  'claim_events',
  'tickets',
  'draws',
  'ledger_transfers',
  'ledger_entries',
] as const;

/** Every row of every reward table. */
async function rewardTables(): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const table of REWARD_TABLES) {
    const result = await sql<{
      row: string;
    }>`SELECT to_jsonb(t)::text AS row FROM ${sql.table(table)} t ORDER BY 1`.execute(ctx.database.db);
    out[table] = result.rows.map((r) => r.row);
  }
  return out;
}

type Case = [method: InjectOptions['method'], url: string, body: unknown, status: number, code: number];

async function expectRefusedAndUnchanged(cases: Case[], token?: string): Promise<void> {
  const before = await rewardTables();
  for (const [method, url, body, status, code] of cases) {
    const response = await ctx.admin(method, url, body, token);
    const call = `${method} ${url} ${JSON.stringify(body) ?? ''}`;
    expect({ call, status: response.statusCode }, response.body).toEqual({ call, status });
    expect(response.json(), call).toMatchObject({
      code,
      name: expect.any(String),
      message: expect.any(String),
    });
  }
  expect(await rewardTables()).toEqual(before);
}

beforeAll(async () => {
  ctx = await startTestApp({ now: '2026-11-22T03:00:00Z' });
  setup = await setupMission(ctx, { missionKey: 'errors', recurrence: 'ONE_TIME' });
  assetId = ok<{ id: string }>(
    await ctx.admin('POST', '/admin/v1/reward-assets', { symbol: 'PNT', name: 'Points', decimals: 2 }),
    201,
  ).id;
  rawAssetId = ok<{ id: string }>(
    await ctx.admin('POST', '/admin/v1/reward-assets', { symbol: 'RAW', name: 'No decimals yet' }),
    201,
  ).id;
  fixedBudget = ok<{ id: string }>(
    await ctx.admin('POST', '/admin/v1/budgets', { type: 'FIXED', assetId, name: 'f', total: '100' }),
    201,
  ).id;
  luckyBudget = ok<{ id: string }>(
    await ctx.admin('POST', '/admin/v1/budgets', { type: 'LUCKY_DRAW', assetId, name: 'l', total: '100' }),
    201,
  ).id;
  ok(
    await ctx.admin('PUT', `/admin/v1/missions/${setup.missionId}/reward`, {
      type: 'FIXED',
      budgetId: fixedBudget,
      amount: '1',
    }),
  );
  dailyCheckPromotion = ok<{ id: string }>(
    await ctx.admin('POST', '/admin/v1/promotions', {
      partnerId: setup.partnerId,
      type: 'DAILY_CHECK',
      title: 'Check in',
      timezone: 'Asia/Seoul',
      startAt: '2026-01-01T00:00:00Z',
    }),
    201,
  ).id;
  dailyCheckGroup = ok<{ id: string }>(
    await ctx.admin('POST', `/admin/v1/promotions/${dailyCheckPromotion}/mission-groups`, { title: 'Daily' }),
    201,
  ).id;
});
afterAll(async () => {
  await ctx?.close();
});

describe('rewards admin routes refuse bad input and change nothing', () => {
  it('reward assets', async () => {
    await expectRefusedAndUnchanged([
      ['POST', '/admin/v1/reward-assets', {}, 400, 3000],
      ['POST', '/admin/v1/reward-assets', { symbol: '', name: 'x' }, 400, 3000],
      ['POST', '/admin/v1/reward-assets', { symbol: 'X', name: 'x', decimals: 37 }, 400, 3000],
      ['POST', '/admin/v1/reward-assets', { symbol: 'X', name: 'x', decimals: -1 }, 400, 3000],
      ['POST', '/admin/v1/reward-assets', { symbol: 'X', name: 'x', decimals: '2' }, 400, 3000],
      ['POST', '/admin/v1/reward-assets', { symbol: 'X', name: 'x', decimals: 2.5 }, 400, 3000],
      ['POST', '/admin/v1/reward-assets', { symbol: 'X', name: 'x', colour: 'red' }, 400, 3000],
      ['GET', '/admin/v1/reward-assets/ast_nope', undefined, 404, 1401],
      ['PATCH', '/admin/v1/reward-assets/ast_nope', { name: 'x' }, 404, 1401],
      ['PATCH', `/admin/v1/reward-assets/${assetId}`, { decimals: 3 }, 409, 3504],
      ['PATCH', `/admin/v1/reward-assets/${assetId}`, { decimals: 40 }, 400, 3000],
    ]);
  });

  it('budgets and top-ups', async () => {
    const body = (over: Record<string, unknown>) => ({
      type: 'FIXED',
      assetId,
      name: 'b',
      total: '10',
      ...over,
    });
    await expectRefusedAndUnchanged([
      ['POST', '/admin/v1/budgets', {}, 400, 3000],
      ['POST', '/admin/v1/budgets', body({ type: 'OTHER' }), 400, 3000],
      ['POST', '/admin/v1/budgets', body({ total: '1.001' }), 400, 3500],
      ['POST', '/admin/v1/budgets', body({ total: '0' }), 400, 3500],
      ['POST', '/admin/v1/budgets', body({ total: '-1' }), 400, 3000],
      ['POST', '/admin/v1/budgets', body({ total: '1e3' }), 400, 3000],
      ['POST', '/admin/v1/budgets', body({ total: 12 }), 400, 3000],
      ['POST', '/admin/v1/budgets', body({ total: '1' + '0'.repeat(77) }), 400, 3500],
      ['POST', '/admin/v1/budgets', body({ stripes: 0 }), 400, 3000],
      ['POST', '/admin/v1/budgets', body({ stripes: 65 }), 400, 3000],
      ['POST', '/admin/v1/budgets', body({ assetId: 'ast_nope' }), 404, 1401],
      ['POST', '/admin/v1/budgets', body({ assetId: rawAssetId }), 422, 1402],
      ['GET', '/admin/v1/budgets?limit=0', undefined, 400, 3000],
      ['GET', '/admin/v1/budgets/bdg_nope', undefined, 404, 1902],
      ['POST', '/admin/v1/budgets/bdg_nope/top-up', { amount: '1' }, 404, 1902],
      ['POST', `/admin/v1/budgets/${fixedBudget}/top-up`, {}, 400, 3000],
      ['POST', `/admin/v1/budgets/${fixedBudget}/top-up`, { amount: '0' }, 400, 3500],
      ['POST', `/admin/v1/budgets/${fixedBudget}/top-up`, { amount: '0.001' }, 400, 3500],
      ['POST', `/admin/v1/budgets/${fixedBudget}/top-up`, { amount: -5 }, 400, 3000],
      ['POST', `/admin/v1/budgets/${fixedBudget}/top-up`, { amount: '9'.repeat(76) }, 400, 3500],
    ]);
  });

  it('mission, group and streak rewards', async () => {
    const m = `/admin/v1/missions/${setup.missionId}/reward`;
    const s = `/admin/v1/promotions/${dailyCheckPromotion}/streak-rewards`;
    await expectRefusedAndUnchanged([
      [
        'PUT',
        '/admin/v1/missions/msn_nope/reward',
        { type: 'FIXED', budgetId: fixedBudget, amount: '1' },
        404,
        1201,
      ],
      ['PUT', m, { type: 'FIXED', budgetId: 'bdg_nope', amount: '1' }, 404, 1902],
      ['PUT', m, { type: 'LUCKY_DRAW', budgetId: fixedBudget }, 400, 3501],
      ['PUT', m, { type: 'FIXED', budgetId: luckyBudget, amount: '1' }, 400, 3501],
      ['PUT', m, { type: 'FIXED', budgetId: fixedBudget }, 400, 3500],
      ['PUT', m, { type: 'FIXED', budgetId: fixedBudget, amount: '0' }, 400, 3500],
      ['PUT', m, { type: 'FIXED', budgetId: fixedBudget, amount: '0.001' }, 400, 3500],
      ['PUT', m, { type: 'FIXED', budgetId: fixedBudget, amount: 1 }, 400, 3000],
      ['PUT', m, { type: 'LUCKY_DRAW', budgetId: luckyBudget, amount: '1' }, 400, 3500],
      ['PUT', m, { type: 'CASHBACK', budgetId: fixedBudget }, 400, 3000],
      ['PUT', m, { type: 'FIXED', budgetId: fixedBudget, amount: '1', extra: true }, 400, 3000],
      ['DELETE', '/admin/v1/missions/msn_nope/reward', undefined, 404, 1201],
      [
        'PUT',
        '/admin/v1/mission-groups/grp_nope/reward',
        { type: 'FIXED', budgetId: fixedBudget, amount: '1' },
        404,
        1101,
      ],
      ['DELETE', '/admin/v1/mission-groups/grp_nope/reward', undefined, 404, 1101],
      ['DELETE', `/admin/v1/mission-groups/${setup.groupId}/reward`, undefined, 404, 3505],
      [
        'PUT',
        `/admin/v1/mission-groups/${dailyCheckGroup}/reward`,
        { type: 'FIXED', budgetId: fixedBudget, amount: '1' },
        400,
        3000,
      ],
      ['PUT', '/admin/v1/promotions/prm_nope/streak-rewards', { items: [] }, 404, 2101],
      [
        'PUT',
        `/admin/v1/promotions/${setup.promotionId}/streak-rewards`,
        { items: [{ days: 3, budgetId: fixedBudget, amount: '1' }] },
        400,
        3000,
      ],
      ['PUT', s, { items: [{ days: 0, budgetId: fixedBudget, amount: '1' }] }, 400, 3000],
      ['PUT', s, { items: [{ days: 3, budgetId: luckyBudget, amount: '1' }] }, 400, 3501],
      ['PUT', s, { items: [{ days: 3, budgetId: 'bdg_nope', amount: '1' }] }, 404, 1902],
      ['PUT', s, { items: [{ days: 3, budgetId: fixedBudget, amount: '1.234' }] }, 400, 3500],
      [
        'PUT',
        s,
        {
          items: [
            { days: 3, budgetId: fixedBudget, amount: '1' },
            { days: 3, budgetId: fixedBudget, amount: '2' },
          ],
        },
        400,
        3000,
      ],
      ['PUT', s, { items: [{ days: 3, budgetId: fixedBudget }] }, 400, 3000],
      ['PUT', s, {}, 400, 3000],
    ]);
  });

  it('claims: bad filters, unknown claims, and every move the state machine forbids', async () => {
    // Two linked users: one claim paid, one still REQUESTED (completed after the payout ran).
    for (const uid of ['paid', 'waiting'])
      await createAccount(ctx, { link: { partnerId: setup.partnerId, partnerUid: uid } });
    const complete = async (uid: string) =>
      expect(
        (
          await partnerCall(ctx, setup, {
            method: 'POST',
            url: '/v1/achieve',
            body: { partnerUid: uid, missionKey: 'errors', completed: true },
          })
        ).statusCode,
      ).toBe(200);
    await complete('paid');
    await runPayoutBatch(ctx.database.db, ctx.clock);
    await complete('waiting');
    const claims = ok<{ items: Array<{ id: string; status: string }> }>(
      await ctx.admin('GET', `/admin/v1/claims?budgetId=${fixedBudget}`),
    ).items;
    const paid = claims.find((c) => c.status === 'SUCCEEDED')?.id as string;
    const waiting = claims.find((c) => c.status === 'REQUESTED')?.id as string;
    expect(paid && waiting).toBeTruthy();
    await expectRefusedAndUnchanged([
      ['GET', '/admin/v1/claims?status=PAID', undefined, 400, 3000],
      ['GET', '/admin/v1/claims?limit=501', undefined, 400, 3000],
      ['GET', '/admin/v1/claims?offset=-1', undefined, 400, 3000],
      ['GET', '/admin/v1/claims?colour=red', undefined, 400, 3000],
      ['GET', '/admin/v1/claims/clm_nope/history', undefined, 404, 3503],
      ['POST', '/admin/v1/claims/clm_nope/reject', { reason: 'x' }, 404, 3503],
      ['POST', '/admin/v1/claims/clm_nope/retry', undefined, 404, 3503],
      ['POST', `/admin/v1/claims/${waiting}/reject`, {}, 400, 3000],
      ['POST', `/admin/v1/claims/${waiting}/reject`, { reason: '' }, 400, 3000],
      ['POST', `/admin/v1/claims/${paid}/reject`, { reason: 'too late' }, 409, 3502],
      ['POST', `/admin/v1/claims/${paid}/retry`, undefined, 409, 3502],
      ['POST', `/admin/v1/claims/${waiting}/retry`, undefined, 409, 3502],
      ['POST', `/admin/v1/claims/${waiting}/reject`, { reason: 'on its way to payout' }, 409, 3502],
    ]);
  });

  it('tickets and draws', async () => {
    const draw = ok<{ id: string }>(
      await ctx.admin('POST', '/admin/v1/draws', {
        budgetId: luckyBudget,
        title: 'd',
        prizeAmount: '1',
        winnersCount: 1,
        scheduledAt: ctx.clock.now().toISOString(),
      }),
      201,
    ).id;
    ok(await ctx.admin('POST', `/admin/v1/draws/${draw}/run`));
    const body = (over: Record<string, unknown>) => ({
      budgetId: luckyBudget,
      title: 'd',
      prizeAmount: '1',
      winnersCount: 1,
      scheduledAt: '2026-11-23T00:00:00Z',
      ...over,
    });
    await expectRefusedAndUnchanged([
      ['GET', '/admin/v1/tickets?filter=LOST', undefined, 400, 3000],
      ['GET', '/admin/v1/tickets?filter=NOT_RECEIVED', undefined, 400, 3000],
      ['POST', '/admin/v1/draws', {}, 400, 3000],
      ['POST', '/admin/v1/draws', body({ budgetId: 'bdg_nope' }), 404, 1902],
      ['POST', '/admin/v1/draws', body({ budgetId: fixedBudget }), 400, 3501],
      ['POST', '/admin/v1/draws', body({ prizeAmount: '0.001' }), 400, 3500],
      ['POST', '/admin/v1/draws', body({ prizeAmount: '0' }), 400, 3500],
      ['POST', '/admin/v1/draws', body({ winnersCount: 0 }), 400, 3000],
      ['POST', '/admin/v1/draws', body({ winnersCount: 1.5 }), 400, 3000],
      ['POST', '/admin/v1/draws', body({ scheduledAt: 'tomorrow' }), 400, 3000],
      ['GET', '/admin/v1/draws?limit=0', undefined, 400, 3000],
      ['GET', '/admin/v1/draws/drw_nope', undefined, 404, 3506],
      ['POST', '/admin/v1/draws/drw_nope/run', undefined, 404, 3506],
      ['POST', `/admin/v1/draws/${draw}/run`, undefined, 409, 3507],
    ]);
    const unknown = await ctx.app.inject({ method: 'GET', url: '/v1/draws/drw_nope' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ code: 3506, name: 'NOT_FOUND_DRAW' });
  });

  it('a VIEWER reads rewards but writes nothing (901); no credential is 401', async () => {
    const viewer = ok<{ secret: string }>(
      await ctx.admin('POST', '/admin/v1/admin-credentials', { name: 'viewer', role: 'VIEWER' }),
      201,
    ).secret;
    for (const url of [
      '/admin/v1/reward-assets',
      '/admin/v1/budgets',
      '/admin/v1/claims',
      '/admin/v1/tickets',
      '/admin/v1/draws',
    ]) {
      expect((await ctx.admin('GET', url, undefined, viewer)).statusCode, url).toBe(200);
    }
    await expectRefusedAndUnchanged(
      [
        ['POST', '/admin/v1/reward-assets', { symbol: 'V', name: 'v' }, 403, 901],
        ['PATCH', `/admin/v1/reward-assets/${assetId}`, { name: 'v' }, 403, 901],
        ['POST', '/admin/v1/budgets', { type: 'FIXED', assetId, name: 'v', total: '1' }, 403, 901],
        ['POST', `/admin/v1/budgets/${fixedBudget}/top-up`, { amount: '1' }, 403, 901],
        [
          'PUT',
          `/admin/v1/missions/${setup.missionId}/reward`,
          { type: 'FIXED', budgetId: fixedBudget, amount: '5' },
          403,
          901,
        ],
        ['DELETE', `/admin/v1/missions/${setup.missionId}/reward`, undefined, 403, 901],
        ['PUT', `/admin/v1/promotions/${dailyCheckPromotion}/streak-rewards`, { items: [] }, 403, 901],
        [
          'POST',
          '/admin/v1/draws',
          {
            budgetId: luckyBudget,
            title: 'v',
            prizeAmount: '1',
            winnersCount: 1,
            scheduledAt: '2027-01-01T00:00:00Z',
          },
          403,
          901,
        ],
      ],
      viewer,
    );
    await expectRefusedAndUnchanged(
      [['GET', '/admin/v1/budgets', undefined, 401, 3200]],
      `${ADMIN_TOKEN}-wrong`,
    );
  });
});
