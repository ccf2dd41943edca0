// Every rewards admin route refuses bad input with a 4xx and the error body, and changes nothing:
// each group of refusals compares every reward table before and after.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InjectOptions } from 'fastify';
import { ADMIN_TOKEN, createAccount, setupMission, startTestApp } from './harness.ts';
import type { MissionSetup, TestContext } from './harness.ts';
import { complete, createAsset, createBudget, ok, refused, rewardTables, workerCycle } from './rewards-helpers.ts';

let ctx: TestContext;
let setup: MissionSetup;
let assetId: string;
let rawAssetId: string;
let fixedBudget: string;
let luckyBudget: string;
let dailyCheckPromotion: string;

beforeAll(async () => {
  ctx = await startTestApp({ now: '2026-11-22T03:00:00Z' });
  setup = await setupMission(ctx, { missionKey: 'errors', recurrence: 'ONE_TIME' });
  assetId = await createAsset(ctx);
  rawAssetId = await createAsset(ctx, { symbol: 'RAW', name: 'No decimals yet' });
  fixedBudget = await createBudget(ctx, { assetId, total: '100' });
  luckyBudget = await createBudget(ctx, { assetId, total: '100', type: 'LUCKY_DRAW' });
  ok(await ctx.admin('PUT', `/admin/v1/missions/${setup.missionId}/reward`, { type: 'FIXED', budgetId: fixedBudget, amount: '1' }));
  dailyCheckPromotion = ok<{ id: string }>(
    await ctx.admin('POST', '/admin/v1/promotions', {
      partnerId: setup.partnerId,
      type: 'DAILY_CHECK',
      title: 'Check in',
      timezone: 'Asia/Seoul',
      startAt: '2026-01-01T00:00:00Z',
      status: 'ACTIVE',
    }),
    201,
  ).id;
});
afterAll(async () => {
  await ctx?.close();
});

type Case = [method: InjectOptions['method'], url: string, body: unknown, status: number, code: number];

async function expectRefusedAndUnchanged(cases: Case[]): Promise<void> {
  const before = await rewardTables(ctx);
  for (const [method, url, body, status, code] of cases) {
    const response = await ctx.admin(method, url, body);
    expect({ call: `${method} ${url} ${JSON.stringify(body)}`, status: response.statusCode }).toEqual({ call: `${method} ${url} ${JSON.stringify(body)}`, status });
    refused(response, status, code);
  }
  expect(await rewardTables(ctx)).toEqual(before);
}

describe('reward assets refuse', () => {
  it('bad bodies, unknown ids, and a second change of decimals', async () => {
    ok(await ctx.admin('PATCH', `/admin/v1/reward-assets/${assetId}`, { decimals: 2 }));
    await expectRefusedAndUnchanged([
      ['POST', '/admin/v1/reward-assets', {}, 400, 3000],
      ['POST', '/admin/v1/reward-assets', { symbol: '', name: 'x' }, 400, 3000],
      ['POST', '/admin/v1/reward-assets', { symbol: 'A B', name: 'x' }, 400, 3000],
      ['POST', '/admin/v1/reward-assets', { symbol: 'X', name: 'x', decimals: 37 }, 400, 3000],
      ['POST', '/admin/v1/reward-assets', { symbol: 'X', name: 'x', decimals: -1 }, 400, 3000],
      ['POST', '/admin/v1/reward-assets', { symbol: 'X', name: 'x', decimals: '2' }, 400, 3000],
      ['POST', '/admin/v1/reward-assets', { symbol: 'X', name: 'x', decimals: 2.5 }, 400, 3000],
      ['POST', '/admin/v1/reward-assets', { type: 'NFT', symbol: 'X', name: 'x' }, 400, 3000],
      ['POST', '/admin/v1/reward-assets', { symbol: 'X', name: 'x', colour: 'red' }, 400, 3000],
      ['GET', '/admin/v1/reward-assets?limit=0', undefined, 400, 3000],
      ['GET', '/admin/v1/reward-assets/ast_nope', undefined, 404, 1401],
      ['PATCH', '/admin/v1/reward-assets/ast_nope', { name: 'x' }, 404, 1401],
      ['PATCH', `/admin/v1/reward-assets/${assetId}`, {}, 400, 3000],
      ['PATCH', `/admin/v1/reward-assets/${assetId}`, { decimals: 3 }, 409, 3504],
      ['PATCH', `/admin/v1/reward-assets/${assetId}`, { decimals: null }, 400, 3000],
    ]);
  });
});

describe('budgets refuse', () => {
  it('bad totals, unknown or undecided assets, bad top-ups', async () => {
    const body = (over: Record<string, unknown>) => ({ type: 'FIXED', assetId, name: 'b', total: '10', ...over });
    await expectRefusedAndUnchanged([
      ['POST', '/admin/v1/budgets', {}, 400, 3000],
      ['POST', '/admin/v1/budgets', body({ type: 'OTHER' }), 400, 3000],
      ['POST', '/admin/v1/budgets', body({ total: '1.001' }), 400, 3500],
      ['POST', '/admin/v1/budgets', body({ total: '0' }), 400, 3500],
      ['POST', '/admin/v1/budgets', body({ total: '-1' }), 400, 3000],
      ['POST', '/admin/v1/budgets', body({ total: '1e3' }), 400, 3000],
      ['POST', '/admin/v1/budgets', body({ total: ' 1' }), 400, 3000],
      ['POST', '/admin/v1/budgets', body({ total: 12 }), 400, 3000],
      ['POST', '/admin/v1/budgets', body({ total: 12.5 }), 400, 3000],
      ['POST', '/admin/v1/budgets', body({ total: '1' + '0'.repeat(77) }), 400, 3500],
      ['POST', '/admin/v1/budgets', body({ stripes: 0 }), 400, 3000],
      ['POST', '/admin/v1/budgets', body({ stripes: 65 }), 400, 3000],
      ['POST', '/admin/v1/budgets', body({ assetId: 'ast_nope' }), 404, 1401],
      ['POST', '/admin/v1/budgets', body({ assetId: rawAssetId }), 422, 1402],
      ['GET', '/admin/v1/budgets?type=OTHER', undefined, 400, 3000],
      ['GET', '/admin/v1/budgets/bdg_nope', undefined, 404, 1902],
      ['POST', '/admin/v1/budgets/bdg_nope/top-up', { amount: '1' }, 404, 1902],
      ['POST', `/admin/v1/budgets/${fixedBudget}/top-up`, {}, 400, 3000],
      ['POST', `/admin/v1/budgets/${fixedBudget}/top-up`, { amount: '0' }, 400, 3500],
      ['POST', `/admin/v1/budgets/${fixedBudget}/top-up`, { amount: '0.001' }, 400, 3500],
      ['POST', `/admin/v1/budgets/${fixedBudget}/top-up`, { amount: -5 }, 400, 3000],
      ['POST', `/admin/v1/budgets/${fixedBudget}/top-up`, { amount: '9'.repeat(76) }, 400, 3500],
    ]);
  });
});

describe('mission, group and streak rewards refuse', () => {
  it('unknown targets and budgets, type mismatches, missing or extra amounts, wrong promotion types', async () => {
    const m = `/admin/v1/missions/${setup.missionId}/reward`;
    const g = `/admin/v1/mission-groups/${setup.groupId}/reward`;
    const dailyGroup = ok<{ id: string }>(await ctx.admin('POST', `/admin/v1/promotions/${dailyCheckPromotion}/mission-groups`, { title: 'Daily' }), 201).id;
    const s = `/admin/v1/promotions/${dailyCheckPromotion}/streak-rewards`;
    await expectRefusedAndUnchanged([
      ['PUT', '/admin/v1/missions/msn_nope/reward', { type: 'FIXED', budgetId: fixedBudget, amount: '1' }, 404, 1201],
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
      ['GET', '/admin/v1/missions/msn_nope/reward', undefined, 404, 1201],
      ['DELETE', '/admin/v1/missions/msn_nope/reward', undefined, 404, 1201],
      ['PUT', '/admin/v1/mission-groups/grp_nope/reward', { type: 'FIXED', budgetId: fixedBudget, amount: '1' }, 404, 1101],
      ['GET', g, undefined, 404, 3505],
      ['DELETE', g, undefined, 404, 3505],
      ['PUT', `/admin/v1/mission-groups/${dailyGroup}/reward`, { type: 'FIXED', budgetId: fixedBudget, amount: '1' }, 409, 3510],
      ['GET', '/admin/v1/promotions/prm_nope/streak-rewards', undefined, 404, 2101],
      ['GET', `/admin/v1/promotions/${setup.promotionId}/streak-rewards`, undefined, 409, 3510],
      ['PUT', `/admin/v1/promotions/${setup.promotionId}/streak-rewards/3`, { budgetId: fixedBudget, amount: '1' }, 409, 3510],
      ['PUT', `${s}/0`, { budgetId: fixedBudget, amount: '1' }, 400, 3000],
      ['PUT', `${s}/3661`, { budgetId: fixedBudget, amount: '1' }, 400, 3000],
      ['PUT', `${s}/week`, { budgetId: fixedBudget, amount: '1' }, 400, 3000],
      ['PUT', `${s}/3`, { budgetId: luckyBudget, amount: '1' }, 400, 3501],
      ['PUT', `${s}/3`, { budgetId: 'bdg_nope', amount: '1' }, 404, 1902],
      ['PUT', `${s}/3`, { budgetId: fixedBudget, amount: '1.234' }, 400, 3500],
      ['PUT', `${s}/3`, { type: 'LUCKY_DRAW', budgetId: fixedBudget, amount: '1' }, 400, 3000],
      ['PUT', `${s}/3`, { budgetId: fixedBudget }, 400, 3000],
      ['DELETE', `${s}/3`, undefined, 404, 3505],
    ]);
  });
});

describe('claims refuse', () => {
  it('bad filters, unknown claims, and every move the state machine forbids', async () => {
    await createAccount(ctx, { link: { partnerId: setup.partnerId, partnerUid: 'paid' } });
    expect((await complete(ctx, setup, 'paid', 'errors')).statusCode).toBe(200);
    expect((await complete(ctx, setup, 'waiting', 'errors')).statusCode).toBe(200);
    await workerCycle(ctx);
    const claims = ok<{ items: Array<{ id: string; status: string }> }>(await ctx.admin('GET', `/admin/v1/claims?budgetId=${fixedBudget}`)).items;
    const paid = claims.find((c) => c.status === 'SUCCEEDED')?.id as string;
    const waiting = claims.find((c) => c.status === 'RESERVED')?.id as string;
    expect(paid && waiting).toBeTruthy();
    await expectRefusedAndUnchanged([
      ['GET', '/admin/v1/claims?status=PAID', undefined, 400, 3000],
      ['GET', '/admin/v1/claims?source=BONUS', undefined, 400, 3000],
      ['GET', '/admin/v1/claims?limit=501', undefined, 400, 3000],
      ['GET', '/admin/v1/claims?offset=-1', undefined, 400, 3000],
      ['GET', '/admin/v1/claims?colour=red', undefined, 400, 3000],
      ['GET', '/admin/v1/claims/clm_nope', undefined, 404, 3503],
      ['GET', '/admin/v1/claims/clm_nope/history', undefined, 404, 3503],
      ['POST', '/admin/v1/claims/clm_nope/reject', { reason: 'x' }, 404, 3503],
      ['POST', '/admin/v1/claims/clm_nope/retry', undefined, 404, 3503],
      ['POST', `/admin/v1/claims/${waiting}/reject`, {}, 400, 3000],
      ['POST', `/admin/v1/claims/${waiting}/reject`, { reason: '' }, 400, 3000],
      ['POST', `/admin/v1/claims/${paid}/reject`, { reason: 'too late' }, 409, 3502],
      ['POST', `/admin/v1/claims/${paid}/retry`, undefined, 409, 3502],
      ['POST', `/admin/v1/claims/${waiting}/retry`, undefined, 409, 3502],
    ]);
  });
});

describe('tickets, draws, balances refuse', () => {
  it('bad filters, bad draws, early and repeated runs, unknown accounts', async () => {
    const inAnHour = '2026-11-22T04:00:00Z';
    const draw = ok<{ id: string }>(
      await ctx.admin('POST', '/admin/v1/draws', { budgetId: luckyBudget, title: 'd', prizeAmount: '1', winnersCount: 1, scheduledAt: inAnHour }),
      201,
    ).id;
    const body = (over: Record<string, unknown>) => ({ budgetId: luckyBudget, title: 'd', prizeAmount: '1', winnersCount: 1, scheduledAt: inAnHour, ...over });
    await expectRefusedAndUnchanged([
      ['GET', '/admin/v1/tickets?filter=LOST', undefined, 400, 3000],
      ['GET', '/admin/v1/tickets?filter=NOT_RECEIVED', undefined, 400, 3000],
      ['GET', '/admin/v1/tickets?partnerUid=u1', undefined, 400, 3000],
      ['GET', '/admin/v1/tickets?won=maybe', undefined, 400, 3000],
      ['POST', '/admin/v1/draws', {}, 400, 3000],
      ['POST', '/admin/v1/draws', body({ budgetId: 'bdg_nope' }), 404, 1902],
      ['POST', '/admin/v1/draws', body({ budgetId: fixedBudget }), 400, 3501],
      ['POST', '/admin/v1/draws', body({ prizeAmount: '0.001' }), 400, 3500],
      ['POST', '/admin/v1/draws', body({ prizeAmount: '0' }), 400, 3500],
      ['POST', '/admin/v1/draws', body({ winnersCount: 0 }), 400, 3000],
      ['POST', '/admin/v1/draws', body({ winnersCount: 1.5 }), 400, 3000],
      ['POST', '/admin/v1/draws', body({ scheduledAt: 'tomorrow' }), 400, 3000],
      ['POST', '/admin/v1/draws', body({ scheduledAt: '2026-11-22T02:59:59Z' }), 400, 3000],
      ['POST', '/admin/v1/draws', body({ missionId: 'msn_nope' }), 404, 1201],
      ['GET', '/admin/v1/draws?status=LOST', undefined, 400, 3000],
      ['GET', '/admin/v1/draws/drw_nope', undefined, 404, 3506],
      ['POST', '/admin/v1/draws/drw_nope/run', undefined, 404, 3506],
      ['POST', `/admin/v1/draws/${draw}/run`, undefined, 409, 3507],
      ['GET', '/admin/v1/accounts/acc_nope/balances', undefined, 404, 3511],
    ]);
    // Public: an unknown draw, and entries before the draw.
    refused(await ctx.app.inject({ method: 'GET', url: '/v1/draws/drw_nope' }), 404, 3506);
    refused(await ctx.app.inject({ method: 'GET', url: `/v1/draws/${draw}/entries` }), 409, 3509);
    ctx.clock.set(inAnHour);
    ok(await ctx.admin('POST', `/admin/v1/draws/${draw}/run`));
    await expectRefusedAndUnchanged([['POST', `/admin/v1/draws/${draw}/run`, undefined, 409, 3508]]);
    ctx.clock.set('2026-11-22T03:00:00Z');
  });
});

describe('permissions', () => {
  it('a VIEWER reads rewards but changes nothing (901); no credential is 401', async () => {
    const viewer = ok<{ secret: string }>(await ctx.admin('POST', '/admin/v1/admin-credentials', { name: 'viewer', role: 'VIEWER' }), 201).secret;
    expect((await ctx.admin('GET', '/admin/v1/budgets', undefined, viewer)).statusCode).toBe(200);
    expect((await ctx.admin('GET', '/admin/v1/claims', undefined, viewer)).statusCode).toBe(200);
    const before = await rewardTables(ctx);
    const writes: Array<[InjectOptions['method'], string, unknown]> = [
      ['POST', '/admin/v1/reward-assets', { symbol: 'V', name: 'v' }],
      ['POST', '/admin/v1/budgets', { type: 'FIXED', assetId, name: 'v', total: '1' }],
      ['POST', `/admin/v1/budgets/${fixedBudget}/top-up`, { amount: '1' }],
      ['PUT', `/admin/v1/missions/${setup.missionId}/reward`, { type: 'FIXED', budgetId: fixedBudget, amount: '5' }],
      ['DELETE', `/admin/v1/missions/${setup.missionId}/reward`, undefined],
      ['POST', '/admin/v1/draws', { budgetId: luckyBudget, title: 'v', prizeAmount: '1', winnersCount: 1, scheduledAt: '2027-01-01T00:00:00Z' }],
    ];
    for (const [method, url, body] of writes) refused(await ctx.admin(method, url, body, viewer), 403, 901);
    refused(await ctx.app.inject({ method: 'GET', url: '/admin/v1/budgets' }), 401, 3200);
    refused(await ctx.admin('GET', '/admin/v1/budgets', undefined, `${ADMIN_TOKEN}x`), 401, 3200);
    expect(await rewardTables(ctx)).toEqual(before);
  });
});
