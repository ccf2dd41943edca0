// Money under concurrency (linked users: only they hold budget): a crowd against a small budget, one user reporting many times at once,
// the ledger always balanced, and a payout worker killed with SIGKILL mid-batch paying every claim
// exactly once after it restarts.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import {
  createAccount,
  createAsset,
  partnerCall,
  rewardedMission as rewardedInHarness,
  startTestApp,
} from './harness.ts';
import type { MissionSetup, TestContext } from './harness.ts';
import { linkUsers } from './link-users.ts';
import { describeUnless, needsPostgres } from './requirements.ts';

let ctx: TestContext;
let assetId: string;

beforeAll(async () => {
  ctx = await startTestApp({ now: '2026-11-22T03:00:00Z' });
  assetId = await createAsset(ctx, { symbol: 'TKN', name: 'Token', decimals: 18 });
});
afterAll(async () => {
  await ctx?.close();
});

const rewardedMission = (missionKey: string, total: string, amount: string, stripes?: number) =>
  rewardedInHarness(ctx, assetId, { missionKey, total, amount, ...(stripes !== undefined && { stripes }) });

function complete(setup: MissionSetup, partnerUid: string) {
  return partnerCall(ctx, setup, {
    method: 'POST',
    url: '/v1/achieve',
    body: { partnerUid, missionKey: setup.missionKey, completed: true },
  });
}

async function claimCounts(budgetId: string) {
  const rows = await ctx.database.db
    .selectFrom('claims')
    .select(['status', sql<number>`count(*)::int`.as('n')])
    .where('budget_id', '=', budgetId)
    .groupBy('status')
    .execute();
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

async function stripeSum(budgetId: string): Promise<string> {
  const row = await ctx.database.db
    .selectFrom('budget_stripes')
    .select(sql<string>`sum(remaining)::text`.as('s'))
    .where('budget_id', '=', budgetId)
    .executeTakeFirstOrThrow();
  return row.s;
}

describe('budgets under concurrency', () => {
  it('200 users completing at once against a budget for 50 leave exactly 50 claims and nothing left', async () => {
    const setup = await rewardedMission('crowd', '50', '1');
    await linkUsers(
      ctx,
      setup.partnerId,
      Array.from({ length: 200 }, (_, i) => `crowd-${i}`),
    );
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => complete(setup, `crowd-${i}`)));
    expect(answers.filter((a) => a.statusCode !== 200).map((a) => a.body)).toEqual([]);
    expect(await claimCounts(setup.budgetId)).toEqual({ REQUESTED: 50, REJECTED: 150 });
    expect(await stripeSum(setup.budgetId)).toBe('0');
    expect((await ctx.admin('GET', `/admin/v1/budgets/${setup.budgetId}`)).json()).toMatchObject({
      remaining: '0',
      reserved: '50',
    });
  });

  it('amounts larger than a stripe, with crumbs left in every stripe, never overspend', async () => {
    // 10 units over 16 stripes, 3 units a claim: at most 3 claims fit, 1 unit stays.
    const setup = await rewardedMission('lumpy', '10', '3');
    await linkUsers(
      ctx,
      setup.partnerId,
      Array.from({ length: 30 }, (_, i) => `lumpy-${i}`),
    );
    await Promise.all(Array.from({ length: 30 }, (_, i) => complete(setup, `lumpy-${i}`)));
    expect(await claimCounts(setup.budgetId)).toEqual({ REQUESTED: 3, REJECTED: 27 });
    expect(await stripeSum(setup.budgetId)).toBe(10n ** 18n + '');
  });

  it('one user reporting a completion 100 times at once gets one claim', async () => {
    const setup = await rewardedMission('hammer', '1000', '1');
    await linkUsers(ctx, setup.partnerId, ['same-user']);
    const answers = await Promise.all(Array.from({ length: 100 }, () => complete(setup, 'same-user')));
    expect(answers.every((a) => a.statusCode === 200)).toBe(true);
    expect(await claimCounts(setup.budgetId)).toEqual({ REQUESTED: 1 });
    expect((await ctx.admin('GET', `/admin/v1/budgets/${setup.budgetId}`)).json()).toMatchObject({
      remaining: '999',
      reserved: '1',
    });
  });
});

describeUnless(needsPostgres('it needs concurrent transactions'))('payout worker process', () => {
  // The workers name their connections, so the test can see when one is inside a payout batch.
  const workerUrl = () => {
    const url = new URL(ctx.databaseUrl as string);
    url.searchParams.set('application_name', 'mrs-test-worker');
    return url.toString();
  };
  function startWorker(): ChildProcess {
    return spawn(process.execPath, ['--import', 'tsx', 'src/payout/worker-cli.ts'], {
      env: { ...process.env, DATABASE_URL: workerUrl(), LOG_LEVEL: 'warn', PAYOUT_IDLE_MS: '20' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  }
  /** A worker connection is in a transaction whose statements so far are the payout batch's. */
  async function batchOpen(): Promise<boolean> {
    const result = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE application_name = 'mrs-test-worker' AND datname = current_database() AND xact_start IS NOT NULL
        AND query ~* '(ledger_|claim_events|skip locked)'`.execute(ctx.database.db);
    return (result.rows[0]?.n ?? 0) > 0;
  }

  it('killed with SIGKILL mid-batch and restarted, pays every claim exactly once', async () => {
    const setup = await rewardedMission('payday', '100000', '0.5');
    const users = 1500;
    // Linked users, so their claims are REQUESTED at once.
    for (let i = 0; i < users; i += 100) {
      await Promise.all(
        Array.from({ length: 100 }, async (_, j) => {
          await createAccount(ctx, { link: { partnerId: setup.partnerId, partnerUid: `pay-${i + j}` } });
        }),
      );
    }
    for (let i = 0; i < users; i += 50) {
      await Promise.all(Array.from({ length: 50 }, (_, j) => complete(setup, `pay-${i + j}`)));
    }
    expect(await claimCounts(setup.budgetId)).toEqual({ REQUESTED: users });

    const paidCount = async () => (await claimCounts(setup.budgetId)).SUCCEEDED ?? 0;
    // Kill the first worker once it has paid something and while it is inside a batch.
    const first = startWorker();
    const started = Date.now();
    let midBatch = false;
    while (!midBatch && Date.now() - started < 30_000) {
      midBatch = (await paidCount()) > 0 && (await batchOpen());
      if (!midBatch) await new Promise((r) => setTimeout(r, 2));
    }
    first.kill('SIGKILL');
    expect(midBatch).toBe(true);
    await new Promise((resolve) => first.once('exit', resolve));
    const afterKill = await paidCount();
    expect(afterKill).toBeGreaterThan(0);
    expect(afterKill).toBeLessThan(users);
    // Nothing half done: a claim is SUCCEEDED exactly when it has its ledger transfer.
    const mismatched = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM claims c LEFT JOIN ledger_transfers t ON t.claim_id = c.id AND t.partner_id = c.partner_id
      WHERE c.budget_id = ${setup.budgetId} AND ((c.status = 'SUCCEEDED') <> (t.id IS NOT NULL))`.execute(
      ctx.database.db,
    );
    expect(mismatched.rows[0]?.n).toBe(0);

    // Two workers at once finish the rest; SKIP LOCKED keeps them off each other's claims.
    const workers = [startWorker(), startWorker()];
    const deadline = Date.now() + 25_000;
    while ((await paidCount()) < users && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    for (const w of workers) w.kill('SIGTERM');
    await Promise.all(workers.map((w) => new Promise((resolve) => w.once('exit', resolve))));

    expect(await claimCounts(setup.budgetId)).toEqual({ SUCCEEDED: users });
    const transfers = await ctx.database.db
      .selectFrom('ledger_transfers as t')
      .innerJoin('claims as c', (join) =>
        join.onRef('c.id', '=', 't.claim_id').onRef('c.partner_id', '=', 't.partner_id'),
      )
      .select([
        sql<number>`count(*)::int`.as('n'),
        sql<number>`count(distinct t.claim_id)::int`.as('distinct'),
      ])
      .where('c.budget_id', '=', setup.budgetId)
      .executeTakeFirstOrThrow();
    expect(transfers).toEqual({ n: users, distinct: users });
    const sums = await ctx.database.db
      .selectFrom('ledger_entries')
      .select(sql<string>`sum(amount)::text`.as('s'))
      .executeTakeFirstOrThrow();
    expect(sums.s).toBe('0');
    const budgetAccount = await ctx.database.db
      .selectFrom('ledger_entries')
      .select(sql<string>`sum(amount)::text`.as('s'))
      .where('account', '=', `budget:${setup.budgetId}`)
      .executeTakeFirstOrThrow();
    expect(budgetAccount.s).toBe((-BigInt(users) * 5n * 10n ** 17n).toString());
  }, 90_000);
});
