// Rewards through the public surface: an operator sets up an asset, a budget and a mission reward;
// a completion by a user who has not linked takes nothing; when the user links the reward is
// granted once, then the payout worker pays it into the ledger; the user sees the balance.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createAccount, partnerCall, sessionCookie, setupMission, startTestApp } from './harness.ts';
import type { MissionSetup, TestContext } from './harness.ts';
import { APP_ORIGIN, loginAtPartner, PARTNER_REDIRECT, TestBrowser } from './login-helpers.ts';
import { runPayoutBatch } from '../src/payout/worker.ts';
import { onUserLinked } from '../src/claims/deferred-rewards.ts';

let ctx: TestContext;
let setup: MissionSetup;
let assetId: string;

beforeAll(async () => {
  ctx = await startTestApp({ env: { PUBLIC_BASE_URL: APP_ORIGIN }, now: '2026-11-22T03:00:00Z' });
  setup = await setupMission(ctx, { missionKey: 'daily-login', recurrence: 'DAILY' });
  await ctx.admin('PATCH', `/admin/v1/partners/${setup.partnerId}`, { redirectUrls: [PARTNER_REDIRECT] });
  assetId = (
    await ctx.admin('POST', '/admin/v1/reward-assets', { symbol: 'PNT', name: 'Points', decimals: 2 })
  ).json().id;
});
afterAll(async () => {
  await ctx?.close();
});

async function budget(total: string, type = 'FIXED') {
  const response = await ctx.admin('POST', '/admin/v1/budgets', {
    type,
    assetId,
    name: `Budget ${total}`,
    total,
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<{ id: string }>().id;
}

function achieve(partnerUid: string, missionKey = 'daily-login', completed = true) {
  return partnerCall(ctx, setup, {
    method: 'POST',
    url: '/v1/achieve',
    body: { partnerUid, missionKey, completed },
  });
}

async function claims(query: string) {
  return (await ctx.admin('GET', `/admin/v1/claims?${query}`)).json<{
    items: Array<Record<string, unknown>>;
  }>().items;
}

async function ledgerSums() {
  return ctx.database.db
    .selectFrom('ledger_entries')
    .select(['asset_id', sql<string>`sum(amount)::text`.as('sum')])
    .groupBy('asset_id')
    .execute();
}

describe('a FIXED mission reward', () => {
  it('is recorded while the user is unlinked (nothing taken), granted once when they link, and paid into the ledger', async () => {
    const budgetId = await budget('100');
    const rule = await ctx.admin('PUT', `/admin/v1/missions/${setup.missionId}/reward`, {
      type: 'FIXED',
      budgetId,
      amount: '12.5',
    });
    expect(rule.statusCode, rule.body).toBe(200);
    expect(rule.json()).toMatchObject({ type: 'FIXED', budgetId, amount: '12.5' });

    expect((await achieve('u-1')).statusCode).toBe(200);
    expect((await achieve('u-1')).statusCode).toBe(200); // the same period again: nothing more
    // Not linked: the completion is recorded, but no claim and nothing out of the budget.
    let mine = await claims('partnerUid=u-1');
    expect(mine).toHaveLength(0);
    expect((await ctx.admin('GET', `/admin/v1/budgets/${budgetId}`)).json()).toMatchObject({
      total: '100',
      remaining: '100',
      reserved: '0',
      paid: '0',
    });
    const progress = await ctx.admin('GET', `/admin/v1/partners/${setup.partnerId}/users/u-1/progress`);
    expect(progress.json().items[0]).toMatchObject({ completed: true, periodKey: '2026-11-22' });

    // Nothing to pay while the user is not linked.
    expect(await runPayoutBatch(ctx.database.db, ctx.clock)).toBe(0);

    // The user links through the login journey: the reward is granted and requested.
    const landed = await loginAtPartner(new TestBrowser(ctx), setup.partnerId, 'reward-user');
    const connect = await partnerCall(ctx, setup, {
      method: 'POST',
      url: '/v1/mission-users/connect',
      body: { token: landed.searchParams.get('token'), partnerUid: 'u-1', region: 'KR' },
    });
    expect(connect.statusCode).toBe(200);
    mine = await claims('partnerUid=u-1');
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({
      status: 'REQUESTED',
      amount: '12.5',
      assetSymbol: 'PNT',
      periodKey: '2026-11-22',
    });
    expect((await ctx.admin('GET', `/admin/v1/budgets/${budgetId}`)).json()).toMatchObject({
      remaining: '87.5',
      reserved: '12.5',
      paid: '0',
    });
    const accountId = mine[0]?.accountId as string;
    expect(accountId).toMatch(/^acc_/);

    expect(await runPayoutBatch(ctx.database.db, ctx.clock)).toBe(1);
    mine = await claims('partnerUid=u-1');
    expect(mine[0]).toMatchObject({ status: 'SUCCEEDED' });
    expect((await ctx.admin('GET', `/admin/v1/budgets/${budgetId}`)).json()).toMatchObject({
      remaining: '87.5',
      reserved: '0',
      paid: '12.5',
    });
    const history = (await ctx.admin('GET', `/admin/v1/claims/${mine[0]?.id}/history`)).json<{
      items: Array<{ from: string | null; to: string }>;
    }>().items;
    expect(history.map((h) => `${h.from}>${h.to}`)).toEqual([
      'null>RESERVED',
      'RESERVED>REQUESTED',
      'REQUESTED>SUCCEEDED',
    ]);

    // The user sees the balance and the claim; the ledger balances to zero.
    const cookie = await sessionCookie(ctx, accountId);
    const balances = await ctx.app.inject({ method: 'GET', url: '/v1/me/balances', headers: { cookie } });
    expect(balances.json()).toEqual({
      items: [{ assetId, symbol: 'PNT', name: 'Points', decimals: 2, balance: '12.5' }],
    });
    const myClaims = await ctx.app.inject({
      method: 'GET',
      url: '/v1/me/claims?status=SUCCEEDED',
      headers: { cookie },
    });
    expect(myClaims.json().items).toHaveLength(1);
    expect(await ledgerSums()).toEqual([{ asset_id: assetId, sum: '0' }]);
    // A second batch pays nothing again.
    expect(await runPayoutBatch(ctx.database.db, ctx.clock)).toBe(0);

    // The next day is a new period: a new claim, requested at once (the user is linked now).
    ctx.clock.advance(24 * 3600 * 1000);
    expect((await achieve('u-1')).statusCode).toBe(200);
    expect(await claims('partnerUid=u-1&status=REQUESTED')).toHaveLength(1);
  });

  it('an empty budget records the completion and a REJECTED claim; the partner still gets 200', async () => {
    const short = await setupMission(ctx, { missionKey: 'short', recurrence: 'ONE_TIME' });
    const budgetId = await budget('20');
    await ctx.admin('PUT', `/admin/v1/missions/${short.missionId}/reward`, {
      type: 'FIXED',
      budgetId,
      amount: '12.5',
    });
    const call = (uid: string) =>
      partnerCall(ctx, short, {
        method: 'POST',
        url: '/v1/achieve',
        body: { partnerUid: uid, missionKey: 'short', completed: true },
      });
    for (const uid of ['a', 'b'])
      await createAccount(ctx, { link: { partnerId: short.partnerId, partnerUid: uid } });
    expect((await call('a')).statusCode).toBe(200);
    expect((await call('b')).statusCode).toBe(200);
    const all = await claims(`budgetId=${budgetId}`);
    expect(all.map((c) => c.status).sort()).toEqual(['REJECTED', 'REQUESTED']);
    expect(all.find((c) => c.status === 'REJECTED')?.reason).toBe('BUDGET_EXHAUSTED');
    expect((await ctx.admin('GET', `/admin/v1/budgets/${budgetId}`)).json()).toMatchObject({
      remaining: '7.5',
      reserved: '12.5',
      rejected: 1,
    });
    const progress = await ctx.admin('GET', `/admin/v1/partners/${short.partnerId}/users/b/progress`);
    expect(progress.json().items[0]).toMatchObject({ completed: true });

    // A requested claim is on its way to payout: an operator can neither reject nor retry it.
    const requested = all.find((c) => c.status === 'REQUESTED');
    const reject = await ctx.admin('POST', `/admin/v1/claims/${requested?.id}/reject`, { reason: 'fraud' });
    expect(reject.statusCode).toBe(409);
    expect(reject.json().name).toBe('ILLEGAL_CLAIM_TRANSITION');
    const retry = await ctx.admin('POST', `/admin/v1/claims/${requested?.id}/retry`);
    expect(retry.statusCode).toBe(409);

    // A top-up makes room again.
    expect(
      (await ctx.admin('POST', `/admin/v1/budgets/${budgetId}/top-up`, { amount: '0.05' })).json(),
    ).toMatchObject({ total: '20.05', remaining: '7.55' });
  });

  it('a completion older than CLAIM_RESERVATION_TTL_SECONDS when its user links is not rewarded (REJECTED, EXPIRED)', async () => {
    const waiting = await setupMission(ctx, { missionKey: 'waiting', recurrence: 'ONE_TIME' });
    const budgetId = await budget('30');
    await ctx.admin('PUT', `/admin/v1/missions/${waiting.missionId}/reward`, {
      type: 'FIXED',
      budgetId,
      amount: '10',
    });
    await partnerCall(ctx, waiting, {
      method: 'POST',
      url: '/v1/achieve',
      body: { partnerUid: 'late-linker', missionKey: 'waiting', completed: true },
    });
    expect((await ctx.admin('GET', `/admin/v1/budgets/${budgetId}`)).json()).toMatchObject({
      remaining: '30',
      reserved: '0',
    });
    ctx.clock.advance((ctx.config.claimReservationTtlSeconds + 60) * 1000);
    // The link as connect makes it (the login's ID token would be checked against the real clock).
    const accountId = await createAccount(ctx);
    await ctx.database.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('user_mappings')
        .values({
          partner_id: waiting.partnerId,
          partner_uid: 'late-linker',
          account_id: accountId,
          region: 'KR',
          created_at: ctx.clock.now(),
        })
        .execute();
      await onUserLinked(
        trx,
        { partnerId: waiting.partnerId, partnerUid: 'late-linker', accountId },
        ctx.clock.now(),
        ctx.config.claimReservationTtlSeconds,
      );
    });
    const [claim] = await claims(`budgetId=${budgetId}`);
    expect(claim).toMatchObject({ status: 'REJECTED', reason: 'EXPIRED', partnerUid: 'late-linker' });
    expect((await ctx.admin('GET', `/admin/v1/budgets/${budgetId}`)).json()).toMatchObject({
      remaining: '30',
      reserved: '0',
      rejected: 1,
    });
  });

  it('a group reward is paid when the last mission of the group completes', async () => {
    const group = await setupMission(ctx, { missionKey: 'g-first', recurrence: 'DAILY' });
    const second = await ctx.admin('POST', `/admin/v1/mission-groups/${group.groupId}/missions`, {
      missionKey: 'g-second',
      title: 'Second',
      recurrence: 'DAILY',
    });
    expect(second.statusCode).toBe(201);
    const budgetId = await budget('50');
    expect(
      (
        await ctx.admin('PUT', `/admin/v1/mission-groups/${group.groupId}/reward`, {
          type: 'FIXED',
          budgetId,
          amount: '5',
        })
      ).statusCode,
    ).toBe(200);
    const call = (missionKey: string) =>
      partnerCall(ctx, group, {
        method: 'POST',
        url: '/v1/achieve',
        body: { partnerUid: 'g-user', missionKey, completed: true },
      });
    await createAccount(ctx, { link: { partnerId: group.partnerId, partnerUid: 'g-user' } });
    await call('g-first');
    expect(await claims(`budgetId=${budgetId}`)).toHaveLength(0);
    await call('g-second');
    const paid = await claims(`budgetId=${budgetId}`);
    expect(paid).toHaveLength(1);
    expect(paid[0]).toMatchObject({ source: 'GROUP', amount: '5' });
  });

  it('a LUCKY_DRAW reward issues one ticket per period', async () => {
    const lucky = await setupMission(ctx, { missionKey: 'lucky', recurrence: 'DAILY' });
    const budgetId = await budget('1000', 'LUCKY_DRAW');
    expect(
      (
        await ctx.admin('PUT', `/admin/v1/missions/${lucky.missionId}/reward`, {
          type: 'LUCKY_DRAW',
          budgetId,
        })
      ).statusCode,
    ).toBe(200);
    await createAccount(ctx, { link: { partnerId: lucky.partnerId, partnerUid: 't-user' } });
    for (let i = 0; i < 3; i++)
      await partnerCall(ctx, lucky, {
        method: 'POST',
        url: '/v1/achieve',
        body: { partnerUid: 't-user', missionKey: 'lucky', completed: true },
      });
    const tickets = (await ctx.admin('GET', `/admin/v1/tickets?filter=RECEIVED&partnerUid=t-user`)).json()
      .items;
    expect(tickets).toHaveLength(1);
    expect(tickets[0]).toMatchObject({ status: 'RECEIVED', missionId: lucky.missionId });
  });
});

describe('reward set-up refuses bad input and changes nothing', () => {
  it('assets and budgets', async () => {
    const noDecimals = (
      await ctx.admin('POST', '/admin/v1/reward-assets', { symbol: 'RAW', name: 'Raw' })
    ).json().id;
    const refused = await ctx.admin('POST', '/admin/v1/budgets', {
      type: 'FIXED',
      assetId: noDecimals,
      name: 'x',
      total: '1',
    });
    expect(refused.statusCode).toBe(422);
    expect(refused.json()).toMatchObject({ code: 1402, name: 'NOT_SET_REWARD_ASSET_DECIMALS' });
    const unknown = await ctx.admin('POST', '/admin/v1/budgets', {
      type: 'FIXED',
      assetId: 'ast_nope',
      name: 'x',
      total: '1',
    });
    expect(unknown.json()).toMatchObject({ code: 1401, name: 'NOT_FOUND_REWARD_ASSET' });
    for (const total of ['1.001', '-1', '1e3', '0', 12, '']) {
      const bad = await ctx.admin('POST', '/admin/v1/budgets', { type: 'FIXED', assetId, name: 'x', total });
      expect(bad.statusCode, String(total)).toBe(400);
    }
    expect((await ctx.admin('GET', '/admin/v1/budgets/bdg_nope')).json()).toMatchObject({
      code: 1902,
      name: 'NOT_FOUND_REWARD_BUDGET',
    });
    // Decimals are set once.
    expect(
      (await ctx.admin('PATCH', `/admin/v1/reward-assets/${noDecimals}`, { decimals: 6 })).json(),
    ).toMatchObject({ decimals: 6 });
    expect(
      (await ctx.admin('PATCH', `/admin/v1/reward-assets/${noDecimals}`, { decimals: 8 })).statusCode,
    ).toBe(409);
    expect(
      (await ctx.admin('PATCH', `/admin/v1/reward-assets/${noDecimals}`, { decimals: 37 })).statusCode,
    ).toBe(400);
  });

  it('mission rewards', async () => {
    const fixed = await budget('10');
    const lucky = await budget('10', 'LUCKY_DRAW');
    const url = `/admin/v1/missions/${setup.missionId}/reward`;
    const mismatch = await ctx.admin('PUT', url, { type: 'LUCKY_DRAW', budgetId: fixed });
    expect(mismatch.statusCode).toBe(400);
    expect(mismatch.json().name).toBe('BUDGET_TYPE_MISMATCH');
    expect((await ctx.admin('PUT', url, { type: 'FIXED', budgetId: fixed })).json().name).toBe(
      'INVALID_AMOUNT',
    );
    expect(
      (await ctx.admin('PUT', url, { type: 'FIXED', budgetId: fixed, amount: '0.001' })).json().name,
    ).toBe('INVALID_AMOUNT');
    expect(
      (await ctx.admin('PUT', url, { type: 'LUCKY_DRAW', budgetId: lucky, amount: '1' })).json().name,
    ).toBe('INVALID_AMOUNT');
    expect(
      (await ctx.admin('PUT', url, { type: 'FIXED', budgetId: 'bdg_nope', amount: '1' })).json().code,
    ).toBe(1902);
    expect(
      (
        await ctx.admin('PUT', '/admin/v1/missions/msn_nope/reward', {
          type: 'FIXED',
          budgetId: fixed,
          amount: '1',
        })
      ).json().code,
    ).toBe(1201);
    // The earlier rule is still there.
    const rules = await ctx.database.db
      .selectFrom('reward_rules')
      .select('budget_id')
      .where('mission_id', '=', setup.missionId)
      .execute();
    expect(rules).toHaveLength(1);
    expect(rules[0]?.budget_id).not.toBe(fixed);
  });
});
