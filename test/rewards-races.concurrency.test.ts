// Races and limits around rewards: two missions of a group finished at once by one user, a
// completion that missed the link of its user, a draw with more entries than a statement has parameters, a
// draw that keeps failing next to payouts that must go on, and a top-up beyond numeric(78,0).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import {
  createAccount,
  createAsset,
  createBudget,
  partnerCall,
  rewardedMission,
  setupMission,
  startTestApp,
} from './harness.ts';
import type { MissionSetup, TestContext } from './harness.ts';
import { linkUsers } from './link-users.ts';
import { onMissionCompleted } from '../src/claims/completion.ts';
import { onUserLinked } from '../src/claims/deferred-rewards.ts';
import { runPayoutBatch, startPayoutWorker } from '../src/payout/worker.ts';
import { achieve } from '../src/progress/service.ts';
import type { CompletionHandler } from '../src/progress/service.ts';
import { grantRewardsOfRecentLinks } from '../src/payout/link-sweep.ts';
import { itUnless, needsPostgres } from './requirements.ts';

let ctx: TestContext;
let assetId: string;

beforeAll(async () => {
  ctx = await startTestApp({ now: '2026-11-22T03:00:00Z' });
  assetId = await createAsset(ctx, { symbol: 'PNT', name: 'Points', decimals: 2 });
});
afterAll(async () => {
  await ctx?.close();
});

const budget = (total: string, type: 'FIXED' | 'LUCKY_DRAW' = 'FIXED') =>
  createBudget(ctx, assetId, total, { type, name: `b-${total}` });

const rewarded = (missionKey: string, amount: string, total = '1000') =>
  rewardedMission(ctx, assetId, { missionKey, total, amount });

const complete = (
  setup: Pick<MissionSetup, 'partnerId' | 'apiKey'>,
  partnerUid: string,
  missionKey: string,
) =>
  partnerCall(ctx, setup, {
    method: 'POST',
    url: '/v1/achieve',
    body: { partnerUid, missionKey, completed: true },
  });

const claimsOf = async (budgetId: string) =>
  (await ctx.admin('GET', `/admin/v1/claims?budgetId=${budgetId}&limit=500`)).json<{
    items: Array<{
      id: string;
      status: string;
      partnerUid: string;
      accountId: string | null;
      reason: string | null;
    }>;
  }>().items;

describe('a group reward', () => {
  // Deterministic: both transactions have written their progress before either looks at the group.
  // Needs real concurrent transactions, so PostgreSQL only (PGlite runs one transaction at a time).
  itUnless(needsPostgres('it needs overlapping transactions, which PGlite cannot run'))(
    'is paid when the two missions of the group are finished in overlapping transactions',
    async () => {
      const setup = await setupMission(ctx, { missionKey: 'overlap-a', recurrence: 'ONE_TIME' });
      expect(
        (
          await ctx.admin('POST', `/admin/v1/mission-groups/${setup.groupId}/missions`, {
            missionKey: 'overlap-b',
            title: 'B',
            recurrence: 'ONE_TIME',
          })
        ).statusCode,
      ).toBe(201);
      const budgetId = await budget('10');
      expect(
        (
          await ctx.admin('PUT', `/admin/v1/mission-groups/${setup.groupId}/reward`, {
            type: 'FIXED',
            budgetId,
            amount: '1',
          })
        ).statusCode,
      ).toBe(200);
      await linkUsers(ctx, setup.partnerId, ['overlapper']);
      let arrived = 0;
      let release: () => void = () => {};
      const bothWritten = new Promise<void>((resolve) => (release = resolve));
      // The handler of each transaction waits until the other has written its progress too.
      const handler: CompletionHandler = async (trx, events) => {
        arrived += 1;
        if (arrived === 2) release();
        await bothWritten;
        await onMissionCompleted(trx, events);
      };
      await Promise.all(
        ['overlap-a', 'overlap-b'].map((missionKey) =>
          achieve(
            ctx.database.db,
            ctx.clock,
            setup.partnerId,
            { partnerUid: 'overlapper', missionKey, completed: true },
            handler,
          ),
        ),
      );
      // Without the per-(user, group) lock each transaction sees only its own record, and nobody pays.
      expect((await claimsOf(budgetId)).map((c) => c.partnerUid)).toEqual(['overlapper']);
    },
  );

  it('is paid once per user when 40 users finish both missions at once', async () => {
    const setup = await setupMission(ctx, { missionKey: 'pair-a', recurrence: 'ONE_TIME' });
    const second = await ctx.admin('POST', `/admin/v1/mission-groups/${setup.groupId}/missions`, {
      missionKey: 'pair-b',
      title: 'B',
      recurrence: 'ONE_TIME',
    });
    expect(second.statusCode).toBe(201);
    const budgetId = await budget('1000');
    expect(
      (
        await ctx.admin('PUT', `/admin/v1/mission-groups/${setup.groupId}/reward`, {
          type: 'FIXED',
          budgetId,
          amount: '1',
        })
      ).statusCode,
    ).toBe(200);
    const users = Array.from({ length: 40 }, (_, i) => `pair-${i}`);
    await linkUsers(ctx, setup.partnerId, users);
    const answers = await Promise.all(
      users.flatMap((uid) => [complete(setup, uid, 'pair-a'), complete(setup, uid, 'pair-b')]),
    );
    expect(answers.map((a) => a.statusCode)).toEqual(Array(80).fill(200));
    const perUser = await ctx.database.db
      .selectFrom('claims')
      .select(['partner_uid', sql<number>`count(*)::int`.as('n')])
      .where('budget_id', '=', budgetId)
      .groupBy('partner_uid')
      .execute();
    expect(perUser.map((r) => r.partner_uid).sort()).toEqual([...users].sort());
    expect(perUser.every((r) => r.n === 1)).toBe(true);
  });
});

describe("a completion that missed its user's link", () => {
  it("is granted by the worker's sweep, its age taken at the link, not at the sweep", async () => {
    const setup = await rewarded('race', '1');
    expect((await complete(setup, 'racer', 'race')).statusCode).toBe(200);
    // The mapping commits without the connect handler seeing the completion (its achieve
    // transaction was still open when connect ran).
    const accountId = await createAccount(ctx);
    await ctx.database.db
      .insertInto('user_mappings')
      .values({
        partner_id: setup.partnerId,
        partner_uid: 'racer',
        account_id: accountId,
        region: 'KR',
        created_at: ctx.clock.now(),
      })
      .execute();
    expect(await claimsOf(setup.budgetId)).toEqual([]);

    // Much later (the worker was down), the sweep still grants it: it was young when the user linked.
    ctx.clock.advance(31 * 24 * 3600 * 1000);
    // The sweep looks at recent links; here the link is a month old, so widen its window.
    expect(
      await grantRewardsOfRecentLinks(ctx.database.db, ctx.clock, { sinceMs: 40 * 24 * 3600 * 1000 }),
    ).toBe(1);
    expect(
      await grantRewardsOfRecentLinks(ctx.database.db, ctx.clock, { sinceMs: 40 * 24 * 3600 * 1000 }),
    ).toBe(0);
    const [claim] = await claimsOf(setup.budgetId);
    expect(claim).toMatchObject({ status: 'REQUESTED', accountId });
    const history = (await ctx.admin('GET', `/admin/v1/claims/${claim?.id}/history`)).json<{
      items: Array<{ from: string | null; to: string }>;
    }>().items;
    expect(history.map((h) => `${h.from}>${h.to}`)).toEqual(['null>RESERVED', 'RESERVED>REQUESTED']);
    // (The batch also pays the linked users' claims of the tests above.)
    expect(await runPayoutBatch(ctx.database.db, ctx.clock)).toBeGreaterThanOrEqual(1);
    expect((await claimsOf(setup.budgetId))[0]).toMatchObject({ status: 'SUCCEEDED' });
    ctx.clock.set('2026-11-22T03:00:00Z');
  });

  it('onUserLinked (what connect calls in its transaction) grants the recorded completions at once', async () => {
    const setup = await rewarded('linking', '2');
    await complete(setup, 'linker', 'linking');
    const accountId = await createAccount(ctx);
    await ctx.database.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('user_mappings')
        .values({
          partner_id: setup.partnerId,
          partner_uid: 'linker',
          account_id: accountId,
          region: 'KR',
          created_at: ctx.clock.now(),
        })
        .execute();
      await onUserLinked(
        trx,
        { partnerId: setup.partnerId, partnerUid: 'linker', accountId },
        ctx.clock.now(),
      );
    });
    expect((await claimsOf(setup.budgetId))[0]).toMatchObject({ status: 'REQUESTED', accountId });
  });
});

describe('draws', () => {
  it('a draw with more entries than a statement has parameters runs', async () => {
    const setup = await setupMission(ctx, { missionKey: 'crowded', recurrence: 'ONE_TIME' });
    const budgetId = await budget('100', 'LUCKY_DRAW');
    expect(
      (
        await ctx.admin('PUT', `/admin/v1/missions/${setup.missionId}/reward`, {
          type: 'LUCKY_DRAW',
          budgetId,
        })
      ).statusCode,
    ).toBe(200);
    const entries = 70_000;
    await sql`
      INSERT INTO tickets (id, partner_id, partner_uid, mission_id, budget_id, period_key, status, created_at)
      SELECT 'tkt_bulk_' || n, ${setup.partnerId}, 'bulk-' || n, ${setup.missionId}, ${budgetId}, 'ONCE', 'RECEIVED', ${ctx.clock.now().toISOString()}::timestamptz
      FROM generate_series(1, ${entries}) AS n`.execute(ctx.database.db);
    const draw = await ctx.admin('POST', '/admin/v1/draws', {
      budgetId,
      title: 'Big',
      prizeAmount: '1',
      winnersCount: 5,
      scheduledAt: ctx.clock.now().toISOString(),
    });
    expect(draw.statusCode, draw.body).toBe(201);
    const ran = await ctx.admin('POST', `/admin/v1/draws/${draw.json<{ id: string }>().id}/run`);
    expect(ran.statusCode, ran.body).toBe(200);
    expect(ran.json()).toMatchObject({ status: 'DRAWN', ticketCount: entries });
    const counts = await ctx.database.db
      .selectFrom('tickets')
      .select([
        sql<number>`count(*) FILTER (WHERE status = 'DRAWN')::int`.as('drawn'),
        sql<number>`count(*) FILTER (WHERE won)::int`.as('won'),
      ])
      .where('budget_id', '=', budgetId)
      .executeTakeFirstOrThrow();
    expect(counts).toEqual({ drawn: entries, won: 5 });
    // These entrants never linked (tickets written directly): their prizes wait for their link.
    expect(await claimsOf(budgetId)).toHaveLength(0);
    const deferred = await ctx.database.db
      .selectFrom('deferred_rewards')
      .select(['source', 'amount'])
      .where('budget_id', '=', budgetId)
      .execute();
    expect(deferred).toEqual(Array(5).fill({ source: 'DRAW', amount: '100' }));
  }, 120_000);

  it('a draw that keeps failing does not stop the worker from paying', async () => {
    const setup = await rewarded('payday', '3');
    await createAccount(ctx, { link: { partnerId: setup.partnerId, partnerUid: 'payee' } });
    await complete(setup, 'payee', 'payday');
    // A due draw that cannot run: its budget row is gone (written around the foreign key).
    await ctx.database.db.transaction().execute(async (trx) => {
      await sql`SET LOCAL session_replication_role = replica`.execute(trx);
      await sql`
        INSERT INTO draws (id, budget_id, title, prize_amount, winners_count, scheduled_at, closes_at, status, commitment, seed, created_at)
        VALUES ('drw_broken', 'bdg_gone', 'broken', 1, 1, ${ctx.clock.now().toISOString()}::timestamptz, ${ctx.clock.now().toISOString()}::timestamptz, 'COMMITTED', ${'0'.repeat(64)}, ${'1'.repeat(64)}, ${ctx.clock.now().toISOString()}::timestamptz)`.execute(
        trx,
      );
    });
    const errors: unknown[] = [];
    const worker = startPayoutWorker(ctx.database.db, ctx.clock, {
      idleMs: 10,
      log: (err) => errors.push(err),
    });
    try {
      for (let i = 0; i < 500 && (await claimsOf(setup.budgetId))[0]?.status !== 'SUCCEEDED'; i++)
        await new Promise((r) => setTimeout(r, 20));
    } finally {
      await worker.stop();
      await ctx.database.db.deleteFrom('draws').where('id', '=', 'drw_broken').execute();
    }
    expect((await claimsOf(setup.budgetId))[0]).toMatchObject({ status: 'SUCCEEDED' });
    expect(errors.length).toBeGreaterThan(0);
  });
});

describe('a top-up', () => {
  it('beyond numeric(78,0) is refused with 3500 and changes nothing', async () => {
    // 2 decimals: the largest total is 10^76 - 0.01 whole units; this one is 0.99 below it.
    const budgetId = await budget('9'.repeat(76));
    const before = (await ctx.admin('GET', `/admin/v1/budgets/${budgetId}`)).json();
    const refused = await ctx.admin('POST', `/admin/v1/budgets/${budgetId}/top-up`, { amount: '1' });
    expect(refused.statusCode, refused.body).toBe(400);
    expect(refused.json()).toMatchObject({ code: 3500, name: 'INVALID_AMOUNT', field: 'amount' });
    expect((await ctx.admin('GET', `/admin/v1/budgets/${budgetId}`)).json()).toEqual(before);
    expect(
      (await ctx.admin('POST', `/admin/v1/budgets/${budgetId}/top-up`, { amount: '0.99' })).json(),
    ).toMatchObject({ total: `${'9'.repeat(76)}.99` });
  });
});
