// Every operator route of rewards on its happy path: assets, budgets, mission/group/streak rewards,
// claims (filters, history, reject, retry), tickets, draws, balances and ledger totals.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, setupMission, startTestApp } from './harness.ts';
import type { MissionSetup, TestContext } from './harness.ts';
import { budgetOf, complete, createAsset, createBudget, expectBudgetsBalanced, ledgerSums, ok, workerCycle } from './rewards-helpers.ts';
import type { PayoutProvider } from '../src/rewards/index.ts';

let ctx: TestContext;
let setup: MissionSetup;

beforeAll(async () => {
  ctx = await startTestApp({ now: '2026-11-22T03:00:00Z' });
  setup = await setupMission(ctx, { missionKey: 'daily-login', recurrence: 'DAILY' });
});
afterAll(async () => {
  await ctx?.close();
});

describe('reward assets', () => {
  it('are created, listed, read and updated; decimals can be set once', async () => {
    const created = ok(await ctx.admin('POST', '/admin/v1/reward-assets', { type: 'FT', symbol: 'GEM', name: 'Gems' }), 201);
    expect(created).toMatchObject({ type: 'FT', symbol: 'GEM', name: 'Gems', decimals: null });
    const id = created.id as string;
    expect(id).toMatch(/^ast_/);
    expect(ok(await ctx.admin('GET', `/admin/v1/reward-assets/${id}`))).toEqual(created);
    expect(ok(await ctx.admin('PATCH', `/admin/v1/reward-assets/${id}`, { decimals: 6, name: 'Shiny gems' }))).toMatchObject({ decimals: 6, name: 'Shiny gems' });
    // Setting the same decimals again is no change.
    expect(ok(await ctx.admin('PATCH', `/admin/v1/reward-assets/${id}`, { decimals: 6 }))).toMatchObject({ decimals: 6 });
    const list = ok<{ items: Array<{ id: string }> }>(await ctx.admin('GET', '/admin/v1/reward-assets?limit=500'));
    expect(list.items.map((a) => a.id)).toContain(id);
    expect(ok<{ items: unknown[] }>(await ctx.admin('GET', '/admin/v1/reward-assets?limit=1')).items).toHaveLength(1);
  });
});

describe('budgets', () => {
  it('hold a total in whole units, show remaining/reserved/paid, filter, and take top-ups', async () => {
    const assetId = await createAsset(ctx, { symbol: 'ETHX', name: 'Eighteen', decimals: 18 });
    const created = ok(
      await ctx.admin('POST', '/admin/v1/budgets', { type: 'FIXED', assetId, name: 'Launch', total: '1000.000000000000000001', stripes: 4 }),
      201,
    );
    expect(created).toMatchObject({
      type: 'FIXED',
      assetId,
      assetSymbol: 'ETHX',
      decimals: 18,
      stripes: 4,
      total: '1000.000000000000000001',
      remaining: '1000.000000000000000001',
      reserved: '0',
      paid: '0',
      rejected: 0,
    });
    const id = created.id as string;
    const lucky = await createBudget(ctx, { assetId, total: '5', type: 'LUCKY_DRAW' });
    expect(ok(await ctx.admin('POST', `/admin/v1/budgets/${id}/top-up`, { amount: '0.5' }))).toMatchObject({
      total: '1000.500000000000000001',
      remaining: '1000.500000000000000001',
    });
    expect(ok(await ctx.admin('GET', `/admin/v1/budgets/${id}`))).toMatchObject({ total: '1000.500000000000000001' });
    const fixed = ok<{ items: Array<{ id: string; type: string }> }>(await ctx.admin('GET', `/admin/v1/budgets?type=FIXED&assetId=${assetId}`));
    expect(fixed.items.map((b) => b.id)).toEqual([id]);
    const all = ok<{ items: Array<{ id: string }> }>(await ctx.admin('GET', `/admin/v1/budgets?assetId=${assetId}`));
    expect(all.items.map((b) => b.id).sort()).toEqual([id, lucky].sort());
    // Base units never get lost in the split over stripes.
    const tiny = await createBudget(ctx, { assetId, total: '0.000000000000000001', stripes: 3 });
    expect(ok(await ctx.admin('POST', `/admin/v1/budgets/${tiny}/top-up`, { amount: '0.000000000000000002' }))).toMatchObject({
      total: '0.000000000000000003',
      remaining: '0.000000000000000003',
    });
    await expectBudgetsBalanced(ctx);
  });
});

describe('rewards on missions, groups and streaks', () => {
  it('set, read, replace and remove a mission reward and a group reward', async () => {
    const assetId = await createAsset(ctx);
    const fixed = await createBudget(ctx, { assetId, total: '100' });
    const lucky = await createBudget(ctx, { assetId, total: '100', type: 'LUCKY_DRAW' });
    const url = `/admin/v1/missions/${setup.missionId}/reward`;
    expect(ok(await ctx.admin('PUT', url, { type: 'FIXED', budgetId: fixed, amount: '1.5' }))).toMatchObject({
      target: 'MISSION',
      targetId: setup.missionId,
      type: 'FIXED',
      budgetId: fixed,
      amount: '1.5',
      assetSymbol: 'PNT',
    });
    expect(ok(await ctx.admin('GET', url))).toMatchObject({ type: 'FIXED', amount: '1.5' });
    expect(ok(await ctx.admin('PUT', url, { type: 'LUCKY_DRAW', budgetId: lucky }))).toMatchObject({ type: 'LUCKY_DRAW', amount: null });
    expect((await ctx.admin('DELETE', url)).statusCode).toBe(204);
    expect((await ctx.admin('GET', url)).statusCode).toBe(404);

    const groupUrl = `/admin/v1/mission-groups/${setup.groupId}/reward`;
    expect(ok(await ctx.admin('PUT', groupUrl, { type: 'FIXED', budgetId: fixed, amount: '10' }))).toMatchObject({ target: 'GROUP', targetId: setup.groupId });
    expect(ok(await ctx.admin('GET', groupUrl))).toMatchObject({ amount: '10' });
    expect((await ctx.admin('DELETE', groupUrl)).statusCode).toBe(204);
  });

  it('streak rewards of a DAILY_CHECK promotion', async () => {
    const assetId = await createAsset(ctx);
    const budgetId = await createBudget(ctx, { assetId, total: '100' });
    const promotion = ok<{ id: string }>(
      await ctx.admin('POST', '/admin/v1/promotions', {
        partnerId: setup.partnerId,
        type: 'DAILY_CHECK',
        title: 'Check in',
        timezone: 'Asia/Seoul',
        startAt: '2026-01-01T00:00:00Z',
      }),
      201,
    );
    const base = `/admin/v1/promotions/${promotion.id}/streak-rewards`;
    expect(ok(await ctx.admin('PUT', `${base}/7`, { budgetId, amount: '7' }))).toMatchObject({ days: 7, type: 'FIXED', amount: '7', budgetId });
    expect(ok(await ctx.admin('PUT', `${base}/3`, { type: 'FIXED', budgetId, amount: '3' }))).toMatchObject({ days: 3 });
    expect(ok(await ctx.admin('PUT', `${base}/3`, { budgetId, amount: '2.5' }))).toMatchObject({ days: 3, amount: '2.5' });
    expect(ok<{ items: Array<{ days: number; amount: string }> }>(await ctx.admin('GET', base)).items.map((r) => [r.days, r.amount])).toEqual([
      [3, '2.5'],
      [7, '7'],
    ]);
    expect((await ctx.admin('DELETE', `${base}/7`)).statusCode).toBe(204);
    expect(ok<{ items: unknown[] }>(await ctx.admin('GET', base)).items).toHaveLength(1);
  });
});

describe('claims', () => {
  it('list with every filter, read one with its history, reject a reserved one, retry a failed one', async () => {
    const assetId = await createAsset(ctx);
    const budgetId = await createBudget(ctx, { assetId, total: '100' });
    const mission = await setupMission(ctx, { missionKey: 'claims-mission', recurrence: 'ONE_TIME' });
    ok(await ctx.admin('PUT', `/admin/v1/missions/${mission.missionId}/reward`, { type: 'FIXED', budgetId, amount: '2' }));
    const accountId = await createAccount(ctx, { link: { partnerId: mission.partnerId, partnerUid: 'linked' } });
    expect((await complete(ctx, mission, 'linked', 'claims-mission')).statusCode).toBe(200);
    expect((await complete(ctx, mission, 'waiting', 'claims-mission')).statusCode).toBe(200);

    const list = async (query: string) => ok<{ items: Array<Record<string, unknown>> }>(await ctx.admin('GET', `/admin/v1/claims?${query}`));
    const byBudget = (await list(`budgetId=${budgetId}`)).items;
    expect(byBudget).toHaveLength(2);
    expect((await list(`budgetId=${budgetId}&status=REQUESTED`)).items.map((c) => c.partnerUid)).toEqual(['linked']);
    expect((await list(`budgetId=${budgetId}&status=RESERVED`)).items.map((c) => c.partnerUid)).toEqual(['waiting']);
    expect((await list(`partnerId=${mission.partnerId}&partnerUid=waiting`)).items).toHaveLength(1);
    expect((await list(`promotionId=${mission.promotionId}`)).items).toHaveLength(2);
    expect((await list(`accountId=${accountId}`)).items.map((c) => c.partnerUid)).toEqual(['linked']);
    expect((await list(`budgetId=${budgetId}&source=MISSION&limit=1`)).items).toHaveLength(1);
    expect((await list(`budgetId=${budgetId}&source=DRAW`)).items).toHaveLength(0);

    const waiting = byBudget.find((c) => c.partnerUid === 'waiting') as { id: string };
    expect(ok(await ctx.admin('GET', `/admin/v1/claims/${waiting.id}`))).toMatchObject({
      id: waiting.id,
      status: 'RESERVED',
      amount: '2',
      assetSymbol: 'PNT',
      source: 'MISSION',
      sourceId: mission.missionId,
      periodKey: 'ONCE',
      accountId: null,
      budgetId,
    });
    expect(ok(await ctx.admin('POST', `/admin/v1/claims/${waiting.id}/reject`, { reason: 'duplicate account' }))).toMatchObject({
      status: 'REJECTED',
      reason: 'operator: duplicate account',
    });
    const history = ok<{ items: Array<{ from: string | null; to: string; reason: string | null }> }>(
      await ctx.admin('GET', `/admin/v1/claims/${waiting.id}/history`),
    );
    expect(history.items.map((h) => [h.from, h.to])).toEqual([
      [null, 'RESERVED'],
      ['RESERVED', 'REJECTED'],
    ]);
    expect(await budgetOf(ctx, budgetId)).toMatchObject({ remaining: '98', reserved: '2', rejected: 1 });

    // A provider that refuses: the linked user's claim FAILS; an operator asks again and it is paid.
    const refusing: PayoutProvider = { name: 'refusing', pay: async (_trx, claims) => claims.map((c) => ({ claimId: c.id, ok: false as const, error: 'wallet offline' })) };
    await workerCycle(ctx, { provider: refusing });
    const failed = (await list(`budgetId=${budgetId}&status=FAILED`)).items;
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ attempts: 1, reason: 'refusing: wallet offline' });
    expect(ok(await ctx.admin('POST', `/admin/v1/claims/${failed[0]?.id}/retry`))).toMatchObject({ status: 'REQUESTED', attempts: 0 });
    await workerCycle(ctx);
    expect(ok(await ctx.admin('GET', `/admin/v1/claims/${failed[0]?.id}`))).toMatchObject({ status: 'SUCCEEDED' });
    expect(await budgetOf(ctx, budgetId)).toMatchObject({ remaining: '98', reserved: '0', paid: '2' });

    // Balances of the account, and the ledger's totals.
    expect(ok(await ctx.admin('GET', `/admin/v1/accounts/${accountId}/balances`))).toEqual({
      items: [{ assetId, symbol: 'PNT', name: 'Points', decimals: 2, balance: '2' }],
    });
    const totals = ok<{ items: Array<{ assetId: string; entrySum: string; transfers: number; paid: string }> }>(await ctx.admin('GET', '/admin/v1/ledger/totals'));
    expect(totals.items.find((t) => t.assetId === assetId)).toEqual({ assetId, symbol: 'PNT', entrySum: '0', transfers: 1, paid: '2' });
    expect(Object.values(await ledgerSums(ctx)).every((sum) => sum === '0')).toBe(true);
    await expectBudgetsBalanced(ctx);
  });
});

describe('tickets and draws', () => {
  it('tickets by filter, a scheduled draw run by the operator, its winners', async () => {
    const assetId = await createAsset(ctx);
    const budgetId = await createBudget(ctx, { assetId, total: '100', type: 'LUCKY_DRAW' });
    const mission = await setupMission(ctx, { missionKey: 'lucky-admin', recurrence: 'DAILY' });
    ok(await ctx.admin('PUT', `/admin/v1/missions/${mission.missionId}/reward`, { type: 'LUCKY_DRAW', budgetId }));
    const tickets = (query: string) => ctx.admin('GET', `/admin/v1/tickets?${query}`).then((r) => ok<{ items: Array<Record<string, unknown>> }>(r).items);

    expect(await tickets(`filter=NOT_RECEIVED&partnerId=${mission.partnerId}&partnerUid=u1`)).toEqual([
      expect.objectContaining({ id: null, status: 'NOT_RECEIVED', missionId: mission.missionId, periodKey: '2026-11-22', createdAt: null }),
    ]);
    for (const uid of ['u1', 'u2', 'u3']) expect((await complete(ctx, mission, uid, 'lucky-admin')).statusCode).toBe(200);
    expect(await tickets(`filter=NOT_RECEIVED&partnerId=${mission.partnerId}&partnerUid=u1`)).toEqual([]);
    expect(await tickets(`filter=RECEIVED&budgetId=${budgetId}`)).toHaveLength(3);
    expect(await tickets(`missionId=${mission.missionId}&partnerId=${mission.partnerId}&partnerUid=u2`)).toHaveLength(1);

    const draw = ok<{ id: string; commitment: string; seed: null; status: string }>(
      await ctx.admin('POST', '/admin/v1/draws', {
        budgetId,
        missionId: mission.missionId,
        title: 'Friday draw',
        prizeAmount: '25',
        winnersCount: 2,
        scheduledAt: '2026-11-22T12:00:00Z',
      }),
      201,
    );
    expect(draw).toMatchObject({ status: 'SCHEDULED', seed: null, winners: null, ticketCount: null, prizeAmount: '25', winnersCount: 2 });
    expect(draw.commitment).toMatch(/^[0-9a-f]{64}$/);
    expect(ok<{ items: Array<{ id: string }> }>(await ctx.admin('GET', `/admin/v1/draws?budgetId=${budgetId}&status=SCHEDULED`)).items.map((d) => d.id)).toEqual([draw.id]);
    ctx.clock.set('2026-11-22T12:00:00Z');
    expect(ok(await ctx.admin('GET', `/admin/v1/draws/${draw.id}`))).toMatchObject({ status: 'COMMITTED', seed: null });
    const drawn = ok<{ status: string; seed: string; ticketCount: number; winners: Array<{ ticketId: string; claimStatus: string }> }>(
      await ctx.admin('POST', `/admin/v1/draws/${draw.id}/run`),
    );
    expect(drawn).toMatchObject({ status: 'DRAWN', ticketCount: 3 });
    expect(drawn.seed).toMatch(/^[0-9a-f]{64}$/);
    expect(drawn.winners).toHaveLength(2);
    expect(drawn.winners.every((w) => w.claimStatus === 'RESERVED')).toBe(true);
    expect(await tickets(`drawId=${draw.id}&won=true`)).toHaveLength(2);
    expect(await tickets(`drawId=${draw.id}&won=false`)).toHaveLength(1);
    expect(await tickets(`filter=DRAWN&budgetId=${budgetId}`)).toHaveLength(3);
    expect(ok<{ items: unknown[] }>(await ctx.admin('GET', `/admin/v1/draws?status=DRAWN&budgetId=${budgetId}`)).items).toHaveLength(1);
    expect(await budgetOf(ctx, budgetId)).toMatchObject({ remaining: '50', reserved: '50' });
    ctx.clock.set('2026-11-22T03:00:00Z');
  });
});
