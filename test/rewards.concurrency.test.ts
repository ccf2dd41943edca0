// Money under concurrency (run on PostgreSQL in CI's second pass; on PGlite the same calls are
// serialised and must give the same answers): a crowd against a small striped budget, one user
// reporting many times at once, two missions of a group finished at once, random amounts with
// top-ups and rejections racing the reservations, two payout workers at once, and a worker process
// killed with SIGKILL in the middle of a batch that, restarted, pays every claim exactly once.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import pg from 'pg';
import { createAccount, setupMission, startTestApp } from './harness.ts';
import type { TestContext } from './harness.ts';
import { budgetOf, claimCounts, complete, createAsset, expectBudgetsBalanced, fixedRewardMission, ledgerSums, ok, workerCycle } from './rewards-helpers.ts';
import { runPayoutBatch } from '../src/rewards/payout.ts';
import { ledgerProvider } from '../src/rewards/index.ts';
import { formatAmount, parseAmount } from '../src/domain/amounts.ts';

const onPostgres = process.env.DATABASE_URL !== undefined && process.env.DATABASE_URL !== '';

let ctx: TestContext;
let assetId: string;

beforeAll(async () => {
  ctx = await startTestApp({ now: '2026-11-22T03:00:00Z' });
  assetId = await createAsset(ctx, { symbol: 'TKN', name: 'Token', decimals: 18 });
});
afterAll(async () => {
  await ctx?.close();
});

async function stripeSum(budgetId: string): Promise<string> {
  const row = await ctx.database.db
    .selectFrom('budget_stripes')
    .select(sql<string>`sum(remaining)::text`.as('s'))
    .where('budget_id', '=', budgetId)
    .executeTakeFirstOrThrow();
  return row.s;
}

/** A small deterministic PRNG (mulberry32), so a failing run can be replayed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('budgets under concurrency', () => {
  it('200 users completing at once against a budget for 50 leave exactly 50 claims and nothing left', async () => {
    const setup = await fixedRewardMission(ctx, assetId, { missionKey: 'crowd', total: '50', amount: '1' });
    // A quarter of the crowd is linked: their claims are REQUESTED at once.
    for (let i = 0; i < 200; i += 4) await createAccount(ctx, { link: { partnerId: setup.partnerId, partnerUid: `crowd-${i}` } });
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => complete(ctx, setup, `crowd-${i}`, 'crowd')));
    expect(answers.filter((a) => a.statusCode !== 200).map((a) => a.body)).toEqual([]);
    const counts = await claimCounts(ctx, setup.budgetId);
    expect((counts.RESERVED ?? 0) + (counts.REQUESTED ?? 0)).toBe(50);
    expect(counts.REJECTED).toBe(150);
    expect(await stripeSum(setup.budgetId)).toBe('0');
    expect(await budgetOf(ctx, setup.budgetId)).toMatchObject({ remaining: '0', reserved: '50' });
    // Every completion is recorded, rewarded or not.
    const completed = await ctx.database.db
      .selectFrom('mission_progress')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('mission_id', '=', setup.missionId)
      .where('completed', '=', true)
      .executeTakeFirstOrThrow();
    expect(completed.n).toBe(200);
    await expectBudgetsBalanced(ctx);
  });

  it('amounts larger than a stripe, with crumbs left in every stripe, never overspend', async () => {
    // 10 units over 16 stripes, 3 units a claim: exactly 3 claims fit, 1 unit stays.
    const setup = await fixedRewardMission(ctx, assetId, { missionKey: 'lumpy', total: '0.00000000000000001', amount: '0.000000000000000003' });
    await Promise.all(Array.from({ length: 30 }, (_, i) => complete(ctx, setup, `lumpy-${i}`, 'lumpy')));
    expect(await claimCounts(ctx, setup.budgetId)).toEqual({ RESERVED: 3, REJECTED: 27 });
    expect(await stripeSum(setup.budgetId)).toBe('1');
    await expectBudgetsBalanced(ctx);
  });

  it('one user reporting a completion 100 times at once gets one claim', async () => {
    const setup = await fixedRewardMission(ctx, assetId, { missionKey: 'hammer', total: '1000', amount: '1' });
    const answers = await Promise.all(Array.from({ length: 100 }, () => complete(ctx, setup, 'same-user', 'hammer')));
    expect(answers.every((a) => a.statusCode === 200)).toBe(true);
    expect(await claimCounts(ctx, setup.budgetId)).toEqual({ RESERVED: 1 });
    expect(await budgetOf(ctx, setup.budgetId)).toMatchObject({ remaining: '999', reserved: '1' });
  });

  it('the two missions of a group finished at once by one user pay the group reward once', async () => {
    const setup = await setupMission(ctx, { missionKey: 'pair-a', recurrence: 'ONE_TIME' });
    ok(await ctx.admin('POST', `/admin/v1/mission-groups/${setup.groupId}/missions`, { missionKey: 'pair-b', title: 'B', recurrence: 'ONE_TIME' }), 201);
    const budgetId = ok<{ id: string }>(await ctx.admin('POST', '/admin/v1/budgets', { type: 'FIXED', assetId, name: 'pairs', total: '1000' }), 201).id;
    ok(await ctx.admin('PUT', `/admin/v1/mission-groups/${setup.groupId}/reward`, { type: 'FIXED', budgetId, amount: '1' }));
    const users = Array.from({ length: 40 }, (_, i) => `pair-${i}`);
    const answers = await Promise.all(users.flatMap((uid) => [complete(ctx, setup, uid, 'pair-a'), complete(ctx, setup, uid, 'pair-b')]));
    expect(answers.every((a) => a.statusCode === 200)).toBe(true);
    const rows = await ctx.database.db
      .selectFrom('claims')
      .select(['partner_uid', sql<number>`count(*)::int`.as('n')])
      .where('budget_id', '=', budgetId)
      .groupBy('partner_uid')
      .execute();
    expect(rows).toHaveLength(users.length);
    expect(rows.every((r) => r.n === 1)).toBe(true);
  });

  it('random amounts, stripes, top-ups and rejections racing the reservations never overspend', async () => {
    const next = random(20261122);
    for (let round = 0; round < 4; round++) {
      // Amounts of a few base units, totals that rarely divide evenly over the stripes.
      const unit = BigInt(1 + Math.floor(next() * 7));
      const total = unit * BigInt(5 + Math.floor(next() * 20)) + BigInt(Math.floor(next() * Number(unit)));
      const setup = await fixedRewardMission(ctx, assetId, {
        missionKey: `prop-${round}`,
        total: formatAmount(total, 18),
        amount: formatAmount(unit, 18),
        stripes: 1 + Math.floor(next() * 24),
      });
      const calls: Array<Promise<unknown>> = [];
      const completions: Array<Promise<{ statusCode: number }>> = [];
      let toppedUp = 0n;
      for (let i = 0; i < 60; i++) {
        const completion = complete(ctx, setup, `prop-${round}-${i}`, `prop-${round}`);
        completions.push(completion);
        calls.push(completion);
        if (i % 15 === 7) {
          toppedUp += unit;
          calls.push(ctx.admin('POST', `/admin/v1/budgets/${setup.budgetId}/top-up`, { amount: formatAmount(unit, 18) }));
        }
        if (i % 20 === 10) {
          calls.push(
            ctx.admin('GET', `/admin/v1/claims?budgetId=${setup.budgetId}&status=RESERVED&limit=1`).then(async (r) => {
              const first = r.json<{ items: Array<{ id: string }> }>().items[0];
              if (first) await ctx.admin('POST', `/admin/v1/claims/${first.id}/reject`, { reason: 'race' });
            }),
          );
        }
      }
      await Promise.all(calls);
      expect((await Promise.all(completions)).map((a) => a.statusCode)).toEqual(Array(60).fill(200));
      await expectBudgetsBalanced(ctx);
      const live = await ctx.database.db
        .selectFrom('claims')
        .select(sql<number>`count(*)::int`.as('n'))
        .where('budget_id', '=', setup.budgetId)
        .where('status', '=', 'RESERVED')
        .executeTakeFirstOrThrow();
      expect(BigInt(live.n) * unit <= total + toppedUp).toBe(true);
      expect(parseAmount((await budgetOf(ctx, setup.budgetId)).total, 18)).toBe(total + toppedUp);
    }
  });
});

describe.skipIf(!onPostgres)('payout workers on PostgreSQL', () => {
  async function linkedClaims(missionKey: string, users: number) {
    const setup = await fixedRewardMission(ctx, assetId, { missionKey, total: '100000', amount: '0.5' });
    for (let i = 0; i < users; i += 100) {
      await Promise.all(
        Array.from({ length: Math.min(100, users - i) }, (_, j) => createAccount(ctx, { link: { partnerId: setup.partnerId, partnerUid: `${missionKey}-${i + j}` } })),
      );
    }
    for (let i = 0; i < users; i += 50) {
      await Promise.all(Array.from({ length: Math.min(50, users - i) }, (_, j) => complete(ctx, setup, `${missionKey}-${i + j}`, missionKey)));
    }
    expect(await claimCounts(ctx, setup.budgetId)).toEqual({ REQUESTED: users });
    return setup;
  }

  async function expectPaidExactlyOnce(budgetId: string, users: number) {
    expect(await claimCounts(ctx, budgetId)).toEqual({ SUCCEEDED: users });
    const transfers = await ctx.database.db
      .selectFrom('ledger_transfers as t')
      .innerJoin('claims as c', 'c.id', 't.claim_id')
      .select([sql<number>`count(*)::int`.as('n'), sql<number>`count(distinct t.claim_id)::int`.as('distinct')])
      .where('c.budget_id', '=', budgetId)
      .executeTakeFirstOrThrow();
    expect(transfers).toEqual({ n: users, distinct: users });
    const entries = await ctx.database.db
      .selectFrom('ledger_entries')
      .select(sql<string>`sum(amount)::text`.as('s'))
      .where('account', '=', `budget:${budgetId}`)
      .executeTakeFirstOrThrow();
    expect(entries.s).toBe((-BigInt(users) * 5n * 10n ** 17n).toString());
    expect(Object.values(await ledgerSums(ctx)).every((s) => s === '0')).toBe(true);
  }

  it('two workers in one process at once pay every claim exactly once', async () => {
    const users = 600;
    const setup = await linkedClaims('duo', users);
    const drain = async () => {
      while ((await runPayoutBatch(ctx.database.db, ctx.clock, { provider: ledgerProvider, batchSize: 37 })) > 0);
    };
    await Promise.all([drain(), drain(), drain()]);
    await expectPaidExactlyOnce(setup.budgetId, users);
  });

  it('a worker process killed with SIGKILL in the middle of a batch, restarted, pays every claim exactly once', async () => {
    const users = 1200;
    const setup = await linkedClaims('payday', users);
    const url = new URL(ctx.databaseUrl as string);
    url.searchParams.set('application_name', 'mrs-test-worker');
    const startWorker = (env: Record<string, string>): ChildProcess =>
      // Its own process group: npx, tsx and the worker's node process are signalled together.
      spawn('npx', ['tsx', 'src/rewards/worker-cli.ts'], {
        env: { ...process.env, DATABASE_URL: url.toString(), LOG_LEVEL: 'warn', PAYOUT_IDLE_MS: '20', PAYOUT_BATCH_SIZE: '100', ...env },
        stdio: ['ignore', 'ignore', 'inherit'],
        detached: true,
      });
    const signal = (child: ChildProcess, name: NodeJS.Signals) => process.kill(-(child.pid as number), name);
    const exited = (child: ChildProcess) => new Promise((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', resolve)));
    const paid = async () => (await claimCounts(ctx, setup.budgetId)).SUCCEEDED ?? 0;
    const monitor = new pg.Client({ connectionString: ctx.databaseUrl });
    await monitor.connect();
    const openBatches = async () =>
      Number(
        (
          await monitor.query(
            "SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = 'mrs-test-worker' AND state = 'idle in transaction' AND datname = current_database()",
          )
        ).rows[0].n,
      );

    try {
      // Each batch holds its transaction open for a moment: kill the worker while one is open,
      // after at least one batch has committed.
      const first = startWorker({ PAYOUT_HOLD_MS: '300' });
      const deadline = Date.now() + 60_000;
      let midBatch = false;
      while (Date.now() < deadline && !midBatch) {
        midBatch = (await paid()) > 0 && (await openBatches()) > 0;
        if (!midBatch) await new Promise((r) => setTimeout(r, 10));
      }
      // Seen with a batch open (held 300 ms): kill it now.
      signal(first, 'SIGKILL');
      expect(midBatch).toBe(true);
      await exited(first);
      // The open batch never commits: its connection is gone, and PostgreSQL rolls it back.
      const afterKill = await paid();
      expect(afterKill).toBeGreaterThan(0);
      expect(afterKill).toBeLessThan(users);
      // Nothing half done: every SUCCEEDED claim has its transfer, no other claim has one.
      const mismatched = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM claims c LEFT JOIN ledger_transfers t ON t.claim_id = c.id
        WHERE c.budget_id = ${setup.budgetId} AND ((c.status = 'SUCCEEDED') <> (t.id IS NOT NULL))`.execute(ctx.database.db);
      expect(mismatched.rows[0]?.n).toBe(0);

      // Two fresh workers finish the rest.
      const workers = [startWorker({}), startWorker({})];
      const until = Date.now() + 60_000;
      while ((await paid()) < users && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      for (const w of workers) signal(w, 'SIGTERM');
      await Promise.all(workers.map(exited));
      await expectPaidExactlyOnce(setup.budgetId, users);
      await expectBudgetsBalanced(ctx);
    } finally {
      await monitor.end();
    }
  }, 150_000);
});

describe('the ledger', () => {
  it('balances to zero per asset after everything above is paid', async () => {
    await workerCycle(ctx);
    const sums = await ledgerSums(ctx);
    expect(Object.values(sums).every((s) => s === '0')).toBe(true);
  });
});
