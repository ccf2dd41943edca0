// At least once across crashes (PostgreSQL: the service is a real process on the test's database):
// a service killed with SIGKILL right after achieve committed (before any send), and one killed while
// its POST is in flight, deliver the message after a restart, with the same webhook-id.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { setupMission, startTestApp } from './harness.ts';
import type { MissionSetup, TestContext } from './harness.ts';
import { startReceiver } from './webhooks/receiver.ts';
import { registerEndpoint } from './webhooks/endpoints.ts';
import { freePort } from './free-port.ts';
import { describeUnless, needsPostgres } from './requirements.ts';

const onPostgres = Boolean(process.env.DATABASE_URL);
const dataDir = mkdtempSync(path.join(tmpdir(), 'mrs-webhooks-crash-'));
let ctx: TestContext;
let setup: MissionSetup;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let secret: string;

beforeAll(async () => {
  if (!onPostgres) return;
  ctx = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true' } });
  receiver = await startReceiver();
  setup = await setupMission(ctx, { missionKey: 'crash', recurrence: 'DAILY' });
  ({ secret } = await registerEndpoint(ctx, setup.partnerId, receiver.url, ['mission.completed']));
});
afterAll(async () => {
  await receiver?.close();
  await ctx?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function startService(worker: boolean) {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: {
      ...process.env,
      DATABASE_URL: ctx.databaseUrl,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DEV_CHAIN: 'false',
      PAYOUT_WORKER: 'false',
      WEBHOOK_WORKER: String(worker),
      WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true',
      WEBHOOK_TIMEOUT_MS: '300',
      WEBHOOK_IDLE_MS: '100',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<unknown>((resolve) => child.on('exit', resolve));
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    if (
      await fetch(`${base}/readyz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (child.exitCode !== null) throw new Error(output);
    await new Promise((r) => setTimeout(r, 200));
  }
  return { child, exited, base, output: () => output };
}

async function until(check: () => boolean | Promise<boolean>, ms = 30_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

const achieve = (base: string, partnerUid: string) =>
  fetch(`${base}/v1/achieve`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-partner-id': setup.partnerId,
      'x-api-key': setup.apiKey,
    },
    body: JSON.stringify({ partnerUid, missionKey: 'crash', completed: true }),
  });

async function messageOf(partnerUid: string) {
  const rows = await ctx.database.db
    .selectFrom('webhook_messages')
    .select(['id', 'status', 'payload'])
    .execute();
  return rows.find((r) => (r.payload as { data: { partnerUid: string } }).data.partnerUid === partnerUid);
}

/** Whether the outbox holds an event about `partnerUid` (docs/webhooks.md "The outbox"). */
async function outboxHolds(partnerUid: string) {
  const rows = await ctx.database.db.selectFrom('webhook_outbox').select('data').execute();
  return rows.some((r) => (r.data as Array<{ partnerUid: string }>).some((d) => d.partnerUid === partnerUid));
}

describeUnless(needsPostgres('a killed process needs a database of its own'))(
  'webhooks survive SIGKILL',
  () => {
    it('killed after the commit and before any send: delivered after the restart', async () => {
      receiver.received.length = 0;
      receiver.answer(204);
      const first = await startService(false);
      expect((await achieve(first.base, 'k-1')).status).toBe(200);
      first.child.kill('SIGKILL');
      await first.exited;
      expect(receiver.received).toHaveLength(0);
      // Committed with the completion: its message waits in the outbox, made by the next worker.
      expect(await messageOf('k-1')).toBeUndefined();
      expect(await outboxHolds('k-1')).toBe(true);

      const second = await startService(true);
      try {
        expect(await until(() => receiver.received.length > 0)).toBe(true);
        const [got] = receiver.verified(secret);
        expect(got?.payload).toMatchObject({ type: 'mission.completed', data: { partnerUid: 'k-1' } });
        expect(got?.id).toBe((await messageOf('k-1'))?.id);
        expect(await until(async () => (await messageOf('k-1'))?.status === 'DELIVERED')).toBe(true);
      } finally {
        second.child.kill('SIGKILL');
        await second.exited;
      }
    }, 120_000);

    it('killed while the POST is in flight: sent again after the restart, same webhook-id', async () => {
      receiver.received.length = 0;
      receiver.answer(0); // hold the request: the send has started, never finished
      const first = await startService(true);
      expect((await achieve(first.base, 'k-2')).status).toBe(200);
      expect(await until(() => receiver.received.length === 1)).toBe(true);
      first.child.kill('SIGKILL');
      await first.exited;
      const inFlightId = receiver.received[0]?.headers['webhook-id'];
      expect(await messageOf('k-2')).toMatchObject({ id: inFlightId, status: 'PENDING' });

      receiver.answer(204);
      const second = await startService(true);
      try {
        // After the dead worker's lease runs out (timeout x (batch + 1) + 5 s).
        expect(await until(async () => (await messageOf('k-2'))?.status === 'DELIVERED', 60_000)).toBe(true);
        const ids = receiver.verified(secret).map((m) => m.id);
        expect(ids.length).toBeGreaterThanOrEqual(2);
        expect(new Set(ids)).toEqual(new Set([inFlightId]));
      } finally {
        second.child.kill('SIGKILL');
        await second.exited;
      }
    }, 120_000);
  },
);
