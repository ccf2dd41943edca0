// /readyz tells the truth: it reports not ready when the payout worker of this process makes no
// progress while claims wait, and when the database is stopped; and ready again once they recover.
// (A held table lock is covered by test/database-timeouts.faults.test.ts and a stuck batching queue by
// test/load-shedding.security.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openPostgres } from '../src/db/connection.ts';
import type { Database } from '../src/db/connection.ts';
import { migrate } from '../src/db/migrate.ts';
import { ManualClock } from '../src/domain/clock.ts';
import type { App } from '../src/http/server.ts';
import { PayoutProgress } from '../src/metrics/payout-progress.ts';
import { startPayoutWorker } from '../src/payout/worker.ts';
import { createAccount, OUT_OF_THE_WAY, partnerCall, setupMission, startTestApp } from './harness.ts';
import type { TestContext } from './harness.ts';
import { createOwnPostgres, ownPostgresUnavailable, postgresBinDir } from './own-postgres.ts';
import type { OwnPostgres } from './own-postgres.ts';
import { describeUnless, firstReason, needsPostgres } from './requirements.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(100);
  }
}

describe('a payout worker that makes no progress while claims wait', () => {
  const STALL_MS = 300;
  let ctx: TestContext;
  const progress = new PayoutProgress();
  let worker: ReturnType<typeof startPayoutWorker> | undefined;

  beforeAll(async () => {
    ctx = await startTestApp({
      payoutProgress: progress,
      env: { READYZ_PAYOUT_STALL_MS: String(STALL_MS), METRICS_DB_CACHE_MS: '0' },
    });
  });
  afterAll(async () => {
    await worker?.stop();
    await ctx?.close();
  });

  const readyz = () => ctx.app.inject({ method: 'GET', url: '/readyz' });

  it('turns /readyz not ready, and ready again once the worker pays', async () => {
    const setup = await setupMission(ctx);
    const asset = (
      await ctx.admin('POST', '/admin/v1/reward-assets', { symbol: 'PNT', name: 'Points', decimals: 0 })
    ).json<{ id: string }>().id;
    const budgetId = (
      await ctx.admin('POST', '/admin/v1/budgets', { type: 'FIXED', assetId: asset, name: 'B', total: '100' })
    ).json<{ id: string }>().id;
    expect(
      (
        await ctx.admin('PUT', `/admin/v1/missions/${setup.missionId}/reward`, {
          type: 'FIXED',
          budgetId,
          amount: '5',
        })
      ).statusCode,
    ).toBe(200);
    await createAccount(ctx, { link: { partnerId: setup.partnerId, partnerUid: 'u-1' } });

    worker = startPayoutWorker(ctx.database.db, ctx.clock, { idleMs: 50, progress });
    await sleep(100);
    expect((await readyz()).statusCode).toBe(200);

    // The worker stops (as if its loop hung or died): with no work waiting that is no reason to leave.
    await worker.stop();
    worker = undefined;
    await sleep(STALL_MS * 2);
    expect((await readyz()).statusCode).toBe(200);

    // A claim waits, but not yet longer than the bound: still ready.
    const completed = await partnerCall(ctx, setup, {
      method: 'POST',
      url: '/v1/achieve',
      body: { partnerUid: 'u-1', missionKey: setup.missionKey, completed: true },
    });
    expect(completed.statusCode).toBe(200);
    expect((await readyz()).statusCode).toBe(200);

    // Now it has waited a minute and no batch finished meanwhile: not ready, with the reason.
    ctx.clock.advance(60_000);
    const stuck = await readyz();
    expect(stuck.statusCode).toBe(503);
    expect(stuck.headers['retry-after']).toBe('1');
    expect(stuck.json()).toEqual({
      code: 3098,
      name: 'SERVICE_UNAVAILABLE',
      message: expect.stringContaining('payouts are stuck'),
    });

    // The worker comes back and pays: ready again.
    worker = startPayoutWorker(ctx.database.db, ctx.clock, { idleMs: 50, progress });
    await until('ready again', async () => (await readyz()).statusCode === 200, 10_000);
    const claims = await ctx.admin('GET', '/admin/v1/claims?partnerUid=u-1');
    expect(claims.json<{ items: Array<{ status: string }> }>().items.map((c) => c.status)).toEqual([
      'SUCCEEDED',
    ]);
  });
});

// A cluster of the test's own, stopped and started (never the shared server); on the PostgreSQL pass.
const bin = postgresBinDir();
const cannotRun = ownPostgresUnavailable();

describeUnless(firstReason(cannotRun, needsPostgres('it runs on the PostgreSQL pass')))(
  'the database stopped (a PostgreSQL cluster of its own; runs when DATABASE_URL is set)',
  () => {
    let cluster: OwnPostgres;
    let database: Database;
    let app: App;

    beforeAll(async () => {
      cluster = await createOwnPostgres(bin as string);
      await cluster.start();
      database = openPostgres(cluster.url, 5);
      await migrate(database);
      app = await buildApp({
        config: loadConfig({
          ...OUT_OF_THE_WAY,
          READYZ_TIMEOUT_MS: '500',
          DATABASE_ACQUIRE_TIMEOUT_MS: '500',
        }),
        database,
        clock: new ManualClock('2026-11-22T03:00:00Z'),
        logger: false,
      });
      await app.ready();
    }, 60_000);
    afterAll(async () => {
      await app?.close();
      await database?.close();
      await cluster?.destroy();
    }, 30_000);

    const readyz = () => app.inject({ method: 'GET', url: '/readyz' });

    it('turns /readyz not ready promptly, and ready again once it is back', async () => {
      expect((await readyz()).statusCode).toBe(200);
      await cluster.stop();
      const started = performance.now();
      const down = await readyz();
      // READYZ_TIMEOUT_MS bounds the probe at 0.5 s; a probe without a bound could wait for the
      // system's TCP timeouts (minutes). 10 s tells the two apart with room for a loaded machine.
      expect(performance.now() - started).toBeLessThan(10_000);
      expect(down.statusCode).toBe(503);
      expect(down.json()).toEqual({
        code: 3098,
        name: 'SERVICE_UNAVAILABLE',
        message: expect.stringContaining('the database does not answer'),
      });
      await cluster.start();
      await until('ready again', async () => (await readyz()).statusCode === 200, 20_000);
    }, 60_000);
  },
);
