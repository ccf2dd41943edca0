// Reward farming (docs/security.md "Reward farming"): made-up partner users take and hold no budget;
// a user who completes before linking is paid once when they link, whatever races; what happens
// when the budget ran out meanwhile, shown on /v1/me; operator caps per account and per partner
// per day, under concurrency.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import {
  createAccount,
  createAsset,
  partnerCall,
  rewardedMission,
  sessionCookie,
  startTestApp,
} from './harness.ts';
import type { MissionSetup, TestContext } from './harness.ts';
import { linkUsers } from './link-users.ts';
import { onUserLinked } from '../src/claims/deferred-rewards.ts';
import { grantRewardsOfRecentLinks } from '../src/payout/link-sweep.ts';
import { runPayoutBatch } from '../src/payout/worker.ts';

let ctx: TestContext;
let assetId: string;

beforeAll(async () => {
  ctx = await startTestApp({ now: '2026-11-22T03:00:00Z' });
  assetId = await createAsset(ctx, { symbol: 'PNT', name: 'Points', decimals: 0 });
});
afterAll(async () => {
  await ctx?.close();
});

const rewarded = (missionKey: string, total: string, amount: string) =>
  rewardedMission(ctx, assetId, { missionKey, total, amount });

const complete = (setup: MissionSetup, partnerUid: string, missionKey = setup.missionKey) =>
  partnerCall(ctx, setup, {
    method: 'POST',
    url: '/v1/achieve',
    body: { partnerUid, missionKey, completed: true },
  });

const budgetView = async (budgetId: string) =>
  (await ctx.admin('GET', `/admin/v1/budgets/${budgetId}`)).json<Record<string, unknown>>();

const claimsOf = async (budgetId: string) =>
  ctx.database.db
    .selectFrom('claims')
    .select(['partner_uid', 'status', 'reason', 'amount'])
    .where('budget_id', '=', budgetId)
    .orderBy('partner_uid')
    .execute();

/** Links a partner user as connect does: the mapping and the grant of their recorded completions in one transaction. */
async function link(setup: MissionSetup, partnerUid: string): Promise<string> {
  const accountId = await createAccount(ctx);
  await ctx.database.db.transaction().execute(async (trx) => {
    await trx
      .insertInto('user_mappings')
      .values({
        partner_id: setup.partnerId,
        partner_uid: partnerUid,
        account_id: accountId,
        region: 'KR',
        created_at: ctx.clock.now(),
      })
      .execute();
    await onUserLinked(
      trx,
      { partnerId: setup.partnerId, partnerUid, accountId },
      ctx.clock.now(),
      ctx.config.claimReservationTtlSeconds,
    );
  });
  return accountId;
}

describe('made-up partner users', () => {
  it('500 invented partnerUids completing a rewarded mission take nothing; a real linked user is then paid', async () => {
    const setup = await rewarded('farmed', '2000', '4');
    for (let i = 0; i < 500; i += 100) {
      const answers = await Promise.all(
        Array.from({ length: 100 }, (_, j) => complete(setup, `bot-${i + j}`)),
      );
      expect(answers.filter((a) => a.statusCode !== 200).map((a) => a.body)).toEqual([]);
    }
    // Recorded as completed, but no claim and nothing out of the budget.
    const records = await ctx.database.db
      .selectFrom('mission_progress')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('mission_id', '=', setup.missionId)
      .where('completed', '=', true)
      .executeTakeFirstOrThrow();
    expect(records.n).toBe(500);
    expect(await claimsOf(setup.budgetId)).toEqual([]);
    expect(await budgetView(setup.budgetId)).toMatchObject({
      total: '2000',
      remaining: '2000',
      reserved: '0',
      paid: '0',
      rejected: 0,
    });

    // A real user, linked, is paid in full.
    await linkUsers(ctx, setup.partnerId, ['real-user']);
    expect((await complete(setup, 'real-user')).statusCode).toBe(200);
    expect(await claimsOf(setup.budgetId)).toEqual([
      { partner_uid: 'real-user', status: 'REQUESTED', reason: null, amount: '4' },
    ]);
    expect(await runPayoutBatch(ctx.database.db, ctx.clock)).toBeGreaterThanOrEqual(1);
    expect((await claimsOf(setup.budgetId))[0]?.status).toBe('SUCCEEDED');
    expect(await budgetView(setup.budgetId)).toMatchObject({ remaining: '1996', reserved: '0', paid: '4' });
  });
});

describe('a user who completes before linking', () => {
  it('is paid once when the link, the link sweep and repeated reports race', async () => {
    const setup = await rewarded('race-link', '1000', '5');
    const users = Array.from({ length: 12 }, (_, i) => `late-${i}`);
    for (const uid of users) expect((await complete(setup, uid)).statusCode).toBe(200);
    await Promise.all(
      users.flatMap((uid) => [
        link(setup, uid),
        ...Array.from({ length: 3 }, () => complete(setup, uid)),
        grantRewardsOfRecentLinks(ctx.database.db, ctx.clock),
      ]),
    );
    await grantRewardsOfRecentLinks(ctx.database.db, ctx.clock);
    const claims = await claimsOf(setup.budgetId);
    expect(claims.map((c) => c.partner_uid)).toEqual([...users].sort());
    expect(new Set(claims.map((c) => c.status))).toEqual(new Set(['REQUESTED']));
    expect(await budgetView(setup.budgetId)).toMatchObject({
      remaining: String(1000 - 5 * users.length),
      reserved: String(5 * users.length),
    });
    expect(
      await ctx.database.db
        .selectFrom('deferred_rewards')
        .select('id')
        .where('budget_id', '=', setup.budgetId)
        .execute(),
    ).toEqual([]);
  });

  it('is paid once when the first report and the link race (the sweep picks up what the link missed)', async () => {
    const setup = await rewarded('race-first', '1000', '5');
    const users = Array.from({ length: 12 }, (_, i) => `first-${i}`);
    await Promise.all(users.flatMap((uid) => [complete(setup, uid), link(setup, uid), complete(setup, uid)]));
    await grantRewardsOfRecentLinks(ctx.database.db, ctx.clock);
    const claims = await claimsOf(setup.budgetId);
    expect(claims.map((c) => c.partner_uid)).toEqual([...users].sort());
    expect(new Set(claims.map((c) => c.status))).toEqual(new Set(['REQUESTED']));
    expect(await budgetView(setup.budgetId)).toMatchObject({ remaining: String(1000 - 5 * users.length) });
  });

  it('gets a REJECTED claim (BUDGET_EXHAUSTED) when the budget ran out before the link, and sees why on /v1/me', async () => {
    const setup = await rewarded('ran-out', '4', '4');
    expect((await complete(setup, 'slow-linker')).statusCode).toBe(200);
    await linkUsers(ctx, setup.partnerId, ['quick-linker']);
    expect((await complete(setup, 'quick-linker')).statusCode).toBe(200);
    const accountId = await link(setup, 'slow-linker');
    expect(await claimsOf(setup.budgetId)).toEqual([
      { partner_uid: 'quick-linker', status: 'REQUESTED', reason: null, amount: '4' },
      { partner_uid: 'slow-linker', status: 'REJECTED', reason: 'BUDGET_EXHAUSTED', amount: '4' },
    ]);
    expect(await budgetView(setup.budgetId)).toMatchObject({ remaining: '0', reserved: '4', rejected: 1 });

    const cookie = await sessionCookie(ctx, accountId);
    const missions = (
      await ctx.app.inject({ method: 'GET', url: '/v1/me/missions', headers: { cookie } })
    ).json<{ items: Array<Record<string, unknown>> }>().items;
    const mine = missions.find((m) => m.missionKey === 'ran-out');
    expect(mine).toMatchObject({
      completed: true,
      claim: { status: 'REJECTED', reason: 'BUDGET_EXHAUSTED', grantedOnLink: true },
    });
    const claims = (await ctx.app.inject({ method: 'GET', url: '/v1/me/claims', headers: { cookie } })).json<{
      items: Array<Record<string, unknown>>;
    }>().items;
    expect(claims).toEqual([
      expect.objectContaining({
        status: 'REJECTED',
        reason: 'BUDGET_EXHAUSTED',
        grantedOnLink: true,
        amount: '4',
      }),
    ]);
  });
});

describe('operator caps', () => {
  it('are set, shown and refused when malformed, changing nothing', async () => {
    const setup = await rewarded('caps-admin', '100', '1');
    const url = `/admin/v1/budgets/${setup.budgetId}/caps`;
    expect((await ctx.admin('GET', url)).json()).toEqual({
      budgetId: setup.budgetId,
      perAccountPerDay: null,
      perPartnerPerDay: null,
    });
    const set = await ctx.admin('PUT', url, { perAccountPerDay: '3', perPartnerPerDay: null });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json()).toEqual({ budgetId: setup.budgetId, perAccountPerDay: '3', perPartnerPerDay: null });
    const refusals: Array<[string, unknown, number, number]> = [
      [url, { perAccountPerDay: '0', perPartnerPerDay: null }, 400, 3500],
      [url, { perAccountPerDay: '1.5', perPartnerPerDay: null }, 400, 3500],
      [url, { perAccountPerDay: '-1', perPartnerPerDay: null }, 400, 3000],
      [url, { perAccountPerDay: 3, perPartnerPerDay: null }, 400, 3000],
      [url, { perAccountPerDay: '3' }, 400, 3000],
      [url, { perAccountPerDay: '3', perPartnerPerDay: null, perDay: '1' }, 400, 3000],
      ['/admin/v1/budgets/bdg_nope/caps', { perAccountPerDay: '3', perPartnerPerDay: null }, 404, 1902],
    ];
    for (const [target, body, status, code] of refusals) {
      const refused = await ctx.admin('PUT', target, body);
      expect(refused.statusCode, JSON.stringify(body)).toBe(status);
      expect(refused.json()).toMatchObject({ code, name: expect.any(String), message: expect.any(String) });
    }
    expect((await ctx.admin('GET', url)).json()).toEqual({
      budgetId: setup.budgetId,
      perAccountPerDay: '3',
      perPartnerPerDay: null,
    });
  });

  it('per account per day: one user completing five rewarded missions at once gets three, the rest REJECTED (CAP_REACHED), nothing taken for them', async () => {
    const setup = await rewarded('acct-0', '100', '1');
    for (let i = 1; i < 5; i++) {
      const mission = await ctx.admin('POST', `/admin/v1/mission-groups/${setup.groupId}/missions`, {
        missionKey: `acct-${i}`,
        title: `M${i}`,
        recurrence: 'ONE_TIME',
      });
      expect(
        (
          await ctx.admin('PUT', `/admin/v1/missions/${mission.json<{ id: string }>().id}/reward`, {
            type: 'FIXED',
            budgetId: setup.budgetId,
            amount: '1',
          })
        ).statusCode,
      ).toBe(200);
    }
    expect(
      (
        await ctx.admin('PUT', `/admin/v1/budgets/${setup.budgetId}/caps`, {
          perAccountPerDay: '3',
          perPartnerPerDay: null,
        })
      ).statusCode,
    ).toBe(200);
    await linkUsers(ctx, setup.partnerId, ['greedy', 'modest']);
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, i) => complete(setup, 'greedy', `acct-${i}`)),
    );
    expect(answers.map((a) => a.statusCode)).toEqual(Array(5).fill(200));
    expect((await complete(setup, 'modest', 'acct-0')).statusCode).toBe(200);
    const claims = await claimsOf(setup.budgetId);
    expect(claims.filter((c) => c.partner_uid === 'greedy' && c.status === 'REQUESTED')).toHaveLength(3);
    expect(
      claims.filter((c) => c.partner_uid === 'greedy' && c.status === 'REJECTED').map((c) => c.reason),
    ).toEqual(['CAP_REACHED', 'CAP_REACHED']);
    expect(claims.filter((c) => c.partner_uid === 'modest').map((c) => c.status)).toEqual(['REQUESTED']);
    expect(await budgetView(setup.budgetId)).toMatchObject({ remaining: '96', reserved: '4', rejected: 2 });
  });

  it('per partner per day: a crowd of 30 linked users gets exactly the cap, the rest CAP_REACHED; the next UTC day has room again', async () => {
    const setup = await rewarded('partner-cap', '1000', '2');
    expect(
      (
        await ctx.admin('PUT', `/admin/v1/budgets/${setup.budgetId}/caps`, {
          perAccountPerDay: null,
          perPartnerPerDay: '20',
        })
      ).statusCode,
    ).toBe(200);
    const users = Array.from({ length: 31 }, (_, i) => `crowd-${i}`);
    await linkUsers(ctx, setup.partnerId, users);
    const answers = await Promise.all(users.slice(0, 30).map((uid) => complete(setup, uid)));
    expect(answers.filter((a) => a.statusCode !== 200).map((a) => a.body)).toEqual([]);
    let claims = await claimsOf(setup.budgetId);
    expect(claims.filter((c) => c.status === 'REQUESTED')).toHaveLength(10);
    expect(claims.filter((c) => c.status === 'REJECTED' && c.reason === 'CAP_REACHED')).toHaveLength(20);
    expect(await budgetView(setup.budgetId)).toMatchObject({ remaining: '980', reserved: '20' });

    ctx.clock.advance(24 * 3600 * 1000);
    try {
      expect((await complete(setup, 'crowd-30')).statusCode).toBe(200);
      claims = await claimsOf(setup.budgetId);
      expect(claims.find((c) => c.partner_uid === 'crowd-30')).toMatchObject({ status: 'REQUESTED' });
    } finally {
      ctx.clock.set('2026-11-22T03:00:00Z');
    }
  });
});
