// `npm run worker -- --only=webhooks|payouts` (PostgreSQL: real worker processes on the test's
// database): each role runs alone whatever WEBHOOK_WORKER says, so delivery and payouts can be
// scaled as processes of their own; any other value is refused at start with exit code 2.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createAccount, createAsset, partnerCall, rewardedMission, startTestApp } from './harness.ts';
import type { MissionSetup, TestContext } from './harness.ts';
import { startReceiver } from './webhooks/receiver.ts';
import { registerEndpoint } from './webhooks/endpoints.ts';
import { freePort } from './free-port.ts';
import { describeUnless, needsPostgres } from './requirements.ts';

const onPostgres = Boolean(process.env.DATABASE_URL);
let ctx: TestContext;
let setup: MissionSetup & { budgetId: string };
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let secret: string;
// Every worker this file starts, so that none outlives it whatever a test does.
const children: ChildProcess[] = [];

beforeAll(async () => {
  if (!onPostgres) return;
  ctx = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true' } });
  receiver = await startReceiver();
  const assetId = await createAsset(ctx, { symbol: 'PTS', name: 'Points', decimals: 0 });
  setup = await rewardedMission(ctx, assetId, { missionKey: 'roles', total: '100', amount: '1' });
  ({ secret } = await registerEndpoint(ctx, setup.partnerId, receiver.url, ['mission.completed']));
});
afterAll(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await receiver?.close();
  await ctx?.close();
});

/** A linked user completes the mission: a REQUESTED claim and a PENDING mission.completed message. */
async function completion(partnerUid: string) {
  await createAccount(ctx, { link: { partnerId: setup.partnerId, partnerUid } });
  const answer = await partnerCall(ctx, setup, {
    method: 'POST',
    url: '/v1/achieve',
    body: { partnerUid, missionKey: setup.missionKey, completed: true },
  });
  expect(answer.statusCode, answer.body).toBe(200);
}

function startWorker(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/payout/worker-cli.ts', ...args], {
    env: {
      ...process.env,
      DATABASE_URL: ctx.databaseUrl as string,
      LOG_LEVEL: 'info',
      DEV_CHAIN: 'false',
      PAYOUT_IDLE_MS: '20',
      WEBHOOK_IDLE_MS: '20',
      WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    output: () => output,
    exited,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 30_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting until ${what}`);
}

/** The worker's /metrics on its operations port (METRICS_PORT). */
async function scrape(port: number): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${port}/metrics`);
  expect(response.status).toBe(200);
  return response.text();
}

async function counts() {
  const row = await sql<{ requested: number; paid: number; pending: number }>`
    SELECT (SELECT count(*)::int FROM claims WHERE budget_id = ${setup.budgetId} AND status = 'REQUESTED') AS requested,
           (SELECT count(*)::int FROM claims WHERE budget_id = ${setup.budgetId} AND status = 'SUCCEEDED') AS paid,
           -- Waiting to be sent: a pending message, or one still in the outbox (docs/webhooks.md "The outbox").
           (SELECT count(*)::int FROM webhook_messages WHERE status = 'PENDING')
             + (SELECT coalesce(sum(cardinality(endpoint_ids)), 0)::int FROM webhook_outbox) AS pending`.execute(
    ctx.database.db,
  );
  return row.rows[0] as { requested: number; paid: number; pending: number };
}

describeUnless(needsPostgres('worker processes share one database only on PostgreSQL'))(
  'worker roles',
  () => {
    it('--only=webhooks delivers the messages and pays no claim, even with WEBHOOK_WORKER=false', async () => {
      await completion('roles-1');
      expect(await counts()).toEqual({ requested: 1, paid: 0, pending: 1 });
      const metricsPort = await freePort();
      const worker = startWorker(['--only=webhooks'], {
        WEBHOOK_WORKER: 'false',
        METRICS_PORT: String(metricsPort),
      });
      try {
        await until('the message is delivered', async () => (await counts()).pending === 0);
        expect(receiver.verified(secret).map((m) => m.payload.type)).toEqual(['mission.completed']);
        await until('the worker says what it runs', () => worker.output().includes('webhook worker started'));
        // No payout metrics from a worker that pays nothing: its "seconds since the last payout batch"
        // would only grow, and the alert of docs/operations.md would fire.
        // (The queue readings, mrs_payout_queue_depth and the oldest claim's age, come from the database
        // and are there for every process.)
        const metrics = await scrape(metricsPort);
        expect(metrics).toContain('mrs_payout_queue_depth');
        expect(metrics).not.toMatch(
          /^mrs_payout_(seconds_since_last_batch|batches_total|batch_duration_seconds)/m,
        );
        // Many payout intervals (20 ms) later the claim is still waiting: no payout worker runs here.
        await new Promise((r) => setTimeout(r, 1000));
        expect(await counts()).toEqual({ requested: 1, paid: 0, pending: 0 });
      } finally {
        expect(await worker.stop()).toBe(0);
      }
    }, 60_000);

    it('--only=payouts pays the claims and delivers no message, even with WEBHOOK_WORKER=true', async () => {
      await completion('roles-2');
      const before = receiver.received.length;
      const metricsPort = await freePort();
      const worker = startWorker(['--only=payouts'], {
        WEBHOOK_WORKER: 'true',
        METRICS_PORT: String(metricsPort),
      });
      try {
        await until('both claims are paid', async () => (await counts()).paid === 2);
        await until('the worker says what it runs', () => worker.output().includes('payout worker started'));
        expect(await scrape(metricsPort)).toMatch(/^mrs_payout_seconds_since_last_batch \S+$/m);
        // Many delivery intervals (20 ms) later the new message is still waiting.
        await new Promise((r) => setTimeout(r, 1000));
        expect(await counts()).toEqual({ requested: 0, paid: 2, pending: 1 });
        expect(receiver.received.length).toBe(before);
      } finally {
        expect(await worker.stop()).toBe(0);
      }
    }, 60_000);

    it('--only with another role, or an unknown option, exits 2 and says why', async () => {
      for (const args of [['--only=everything'], ['--everything']]) {
        const worker = startWorker(args);
        const code = await Promise.race([
          worker.exited,
          new Promise((r) => setTimeout(() => r('running'), 20_000)),
        ]);
        await worker.stop();
        expect(code).toBe(2);
        expect(worker.output()).toContain('invalid arguments');
      }
      const { pending } = await counts();
      expect(pending).toBe(1);
    }, 60_000);
  },
);
