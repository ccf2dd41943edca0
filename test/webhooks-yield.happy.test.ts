// Delivery in the service's own process yields to its partner API (docs/webhooks.md, "Delivery
// under load"): while one of the API's batching queues keeps its database slots busy most of the
// time, a message is sent only once it has been held back WEBHOOK_YIELD_MS; once the
// API is calm, everything due goes; with 0 nothing waits. The API's queues are stood in for by
// their busy slot milliseconds (what CoalescerGroup.slotMs answers), the time a message waited by
// the service's clock; the worker, the outbox on both databases and the receiver are real.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { setupMission, startTestApp } from './harness.ts';
import type { TestContext } from './harness.ts';
import { emptyOutbox, registerEndpoint } from './webhooks/endpoints.ts';
import { startReceiver } from './webhooks/receiver.ts';
import { startWebhookWorker } from '../src/webhooks/delivery.ts';
import { saturationWatch } from '../src/webhooks/delivery-yield.ts';
import { loadConfig } from '../src/config.ts';

let ctx: TestContext;
let partnerId: string;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let endpoint: { id: string; secret: string };
let worker: { stop(): Promise<void> } | undefined;

beforeAll(async () => {
  ctx = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true' } });
  ({ partnerId } = await setupMission(ctx, { missionKey: 'yield', recurrence: 'DAILY' }));
  receiver = await startReceiver();
  endpoint = await registerEndpoint(ctx, partnerId, receiver.url, ['mission.completed']);
});
afterEach(async () => {
  await worker?.stop();
  worker = undefined;
  receiver.reset();
  await emptyOutbox(ctx);
});
afterAll(async () => {
  await receiver?.close();
  await ctx?.close();
});

/** `count` mission.completed messages of different users, due since `agoMs` by the service's clock. */
async function pending(count: number, agoMs = 0, first = 0): Promise<void> {
  const at = new Date(ctx.clock.now().getTime() - agoMs);
  for (let i = 0; i < count; i++) {
    const type = 'mission.completed';
    const user = `user-${first + i}`;
    await ctx.database.db
      .insertInto('webhook_messages')
      .values({
        id: `msg_yield_${first + i}`,
        endpoint_id: endpoint.id,
        partner_id: partnerId,
        event_type: type,
        rank: 2,
        payload: JSON.stringify({ type, timestamp: at.toISOString(), data: { partnerUid: user } }),
        status: 'PENDING',
        next_attempt_at: at,
        created_at: at,
      })
      .execute();
  }
}

/** An API with two queues, the second's slots busy all the time while `saturated` is true, never otherwise. */
function api() {
  let saturated = true;
  let busy = 0;
  let since = performance.now();
  const slotMs = () => {
    const now = performance.now();
    if (saturated) busy += now - since;
    since = now;
    return [0, busy];
  };
  return {
    slotMs,
    set saturated(value: boolean) {
      slotMs();
      saturated = value;
    },
  };
}

/** One message a round, so that a message held back shows in what has arrived. */
function start(slotMs: () => number[], maxHoldMs: number) {
  worker = startWebhookWorker(ctx.database.db, ctx.clock, {
    timeoutMs: 2_000,
    requireHttps: false,
    allowPrivateAddresses: true,
    concurrency: 1,
    batchSize: 1,
    idleMs: 20,
    yieldTo: { slotMs, maxHoldMs },
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function arrivedWithin(count: number, ms: number): Promise<number> {
  const started = performance.now();
  while (receiver.received.length < count && performance.now() - started < ms) await sleep(10);
  return performance.now() - started;
}

describe('webhook delivery under a saturated partner API', () => {
  it('sends nothing new while the API is saturated, and everything once it is calm', async () => {
    const queue = api();
    start(queue.slotMs, 60_000);
    await sleep(100); // the worker found nothing to send: it looks again every 100 ms
    await pending(3);
    await sleep(800);
    expect(receiver.received).toHaveLength(0);
    queue.saturated = false;
    // Calm at two looks in a row: then the messages go.
    expect(await arrivedWithin(3, 5_000)).toBeLessThan(2_000);
    expect(receiver.received).toHaveLength(3);
  });

  it('sends, while the API stays saturated, the messages held back as long as the hold allows', async () => {
    const queue = api();
    start(queue.slotMs, 30_000);
    await pending(2, 30_000); // already that late: they go at once
    await pending(2, 29_000, 2);
    expect(await arrivedWithin(2, 5_000)).toBeLessThan(2_000);
    await sleep(500);
    expect(receiver.received).toHaveLength(2);
    // A second later by the service's clock, the other two have waited 30 s as well.
    ctx.clock.advance(1_000);
    expect(await arrivedWithin(4, 5_000)).toBeLessThan(2_000);
    expect(receiver.received).toHaveLength(4);
  });

  it('never holds a message back with a hold of 0', async () => {
    await pending(3);
    start(api().slotMs, 0);
    expect(await arrivedWithin(3, 5_000)).toBeLessThan(2_000);
    expect(receiver.received).toHaveLength(3);
  });
});

describe('saturationWatch', () => {
  it('says saturated when a queue was busy at least three quarters of the time since it last looked', () => {
    let now = 0;
    let slots = [0, 0];
    const saturated = saturationWatch(
      () => slots,
      () => now,
    );
    now = 100;
    slots = [74, 10]; // the busiest 74% of the last 100 ms
    expect(saturated()).toBe(false);
    now = 200;
    slots = [80, 85]; // the second 75%: the busiest queue decides, not the sum
    expect(saturated()).toBe(true);
    now = 300; // nothing ran since
    expect(saturated()).toBe(false);
    now = 400;
    slots = [80, 85, 90]; // a queue made since the last look counts from zero
    expect(saturated()).toBe(true);
    // No time passed: nothing to judge by.
    expect(saturated()).toBe(false);
  });
});

describe('WEBHOOK_YIELD_MS', () => {
  it('is 30 s unless set, 0 turns the hold off, and a value out of range stops start-up', () => {
    expect(loadConfig({}).webhooks.yieldMs).toBe(30_000);
    expect(loadConfig({ WEBHOOK_YIELD_MS: '0' }).webhooks.yieldMs).toBe(0);
    expect(loadConfig({ WEBHOOK_YIELD_MS: '600000' }).webhooks.yieldMs).toBe(600_000);
    expect(() => loadConfig({ WEBHOOK_YIELD_MS: '-1' })).toThrow(/WEBHOOK_YIELD_MS/);
    expect(() => loadConfig({ WEBHOOK_YIELD_MS: 'soon' })).toThrow(/WEBHOOK_YIELD_MS/);
  });
});
