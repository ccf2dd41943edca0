// Delivery to one endpoint: several POSTs at once (WEBHOOK_CONCURRENCY), one user's messages still
// one after another in event order; and a round that runs out of time releases what it did not send
// (due again at once, no attempt counted), to be sent by the next round in order. Until then an
// endpoint's messages went one at a time: a receiver 20 ms away got 44 a second whatever the load
// (docs/performance.md, "Seventh round"). Both databases, a real receiver on loopback.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { setupMission, startTestApp } from './harness.ts';
import type { TestContext } from './harness.ts';
import { emptyOutbox, registerEndpoint } from './webhooks/endpoints.ts';
import { startReceiver } from './webhooks/receiver.ts';
import { runWebhookBatch, sequenceOf } from '../src/webhooks/delivery.ts';
import { loadConfig } from '../src/config.ts';

let ctx: TestContext;
let partnerId: string;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let endpoint: { id: string; secret: string };

beforeAll(async () => {
  ctx = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true' } });
  ({ partnerId } = await setupMission(ctx, { missionKey: 'concurrency', recurrence: 'DAILY' }));
  receiver = await startReceiver();
  endpoint = await registerEndpoint(ctx, partnerId, receiver.url, ['mission.completed', 'claim.requested']);
});
afterEach(async () => {
  receiver.reset();
  await emptyOutbox(ctx);
});
afterAll(async () => {
  await receiver?.close();
  await ctx?.close();
});

/**
 * Each user's mission.completed and claim.requested, all of one instant (as one statement's events
 * are), each user's claim.requested inserted first: event order puts it second by its rank alone.
 */
async function pending(users: string[]): Promise<void> {
  const at = new Date(ctx.clock.now().getTime() - 60_000);
  for (const [u, user] of users.entries()) {
    for (const [type, rank] of [
      ['claim.requested', 4],
      ['mission.completed', 2],
    ] as const) {
      await ctx.database.db
        .insertInto('webhook_messages')
        .values({
          id: `msg_${String(u).padStart(3, '0')}_${rank}`,
          endpoint_id: endpoint.id,
          partner_id: partnerId,
          event_type: type,
          rank,
          payload: JSON.stringify({ type, timestamp: at.toISOString(), data: { partnerUid: user } }),
          status: 'PENDING',
          next_attempt_at: at,
          created_at: at,
        })
        .execute();
    }
  }
}

/** What the receiver got, in arrival order: "user type". */
function arrivals(): string[] {
  return receiver
    .verified(endpoint.secret)
    .map(({ payload }) => `${String(payload.data.partnerUid)} ${payload.type}`);
}

async function messageStates() {
  return (
    ctx.database.db
      .selectFrom('webhook_messages')
      // Joined on the partner too, as on Citus a join of two distributed tables must be (0045).
      .leftJoin('webhook_attempts', (join) =>
        join
          .onRef('webhook_attempts.message_id', '=', 'webhook_messages.id')
          .onRef('webhook_attempts.partner_id', '=', 'webhook_messages.partner_id'),
      )
      .select(['webhook_messages.id', 'status', 'attempts', 'next_attempt_at', 'leased_until'])
      .select(sql<number>`count(webhook_attempts.id)::int`.as('recorded'))
      .groupBy(['webhook_messages.id', 'status', 'attempts', 'next_attempt_at', 'leased_until'])
      .orderBy('webhook_messages.id')
      .execute()
  );
}

describe('webhook delivery to one endpoint', () => {
  it('keeps up to WEBHOOK_CONCURRENCY POSTs in flight, each user’s messages in event order', async () => {
    const users = Array.from({ length: 12 }, (_, i) => `user-${i}`);
    await pending(users);
    receiver.answerAfter(100);
    expect(ctx.config.webhooks.concurrency).toBe(8);
    expect(
      await runWebhookBatch(ctx.database.db, ctx.clock, { ...ctx.config.webhooks, concurrency: 4 }),
    ).toBe(24);
    receiver.answerAfter(0);

    // Four users' messages at once, never more.
    expect(receiver.maxInFlight()).toBe(4);
    const got = arrivals();
    expect([...got].sort()).toEqual(
      users.flatMap((u) => [`${u} claim.requested`, `${u} mission.completed`]).sort(),
    );
    for (const user of users)
      expect(got.indexOf(`${user} mission.completed`)).toBeLessThan(got.indexOf(`${user} claim.requested`));
    for (const state of await messageStates())
      expect(state).toMatchObject({ status: 'DELIVERED', attempts: 1 });
  });

  it('with WEBHOOK_CONCURRENCY=1 sends the endpoint’s messages one at a time in event order', async () => {
    await pending(['a', 'b', 'c']);
    const one = loadConfig({ ADMIN_TOKEN: 'x'.repeat(32), WEBHOOK_CONCURRENCY: '1' }).webhooks;
    expect(one.concurrency).toBe(1);
    receiver.answerAfter(20);
    const options = { ...ctx.config.webhooks, concurrency: one.concurrency };
    expect(await runWebhookBatch(ctx.database.db, ctx.clock, options)).toBe(6);
    receiver.answerAfter(0);
    expect(receiver.maxInFlight()).toBe(1);
    expect(arrivals()).toEqual([
      'a mission.completed',
      'b mission.completed',
      'c mission.completed',
      'a claim.requested',
      'b claim.requested',
      'c claim.requested',
    ]);
  });

  it('a round out of time releases what it did not send, due again at once, and the next sends it in order', async () => {
    await pending(['slow']);
    // The round starts POSTs for 250 ms; the first answer comes after 400 ms, so the second
    // message is not sent in this round.
    const options = { ...ctx.config.webhooks, concurrency: 1, timeoutMs: 2_000, roundMs: 250 };
    receiver.answerAfter(400);
    expect(await runWebhookBatch(ctx.database.db, ctx.clock, options)).toBe(2);
    receiver.answerAfter(0);
    expect(arrivals()).toEqual(['slow mission.completed']);
    const [sent, released] = await messageStates();
    expect(sent).toMatchObject({ id: 'msg_000_2', status: 'DELIVERED', attempts: 1, recorded: 1 });
    expect(released).toMatchObject({ id: 'msg_000_4', status: 'PENDING', attempts: 0, recorded: 0 });
    // Released from its lease, due at its own time again (a minute ago): first of the next round.
    expect(released?.leased_until).toBeNull();
    expect(released?.next_attempt_at.getTime()).toBe(ctx.clock.now().getTime() - 60_000);

    expect(await runWebhookBatch(ctx.database.db, ctx.clock, options)).toBe(1);
    expect(arrivals()).toEqual(['slow mission.completed', 'slow claim.requested']);
    for (const state of await messageStates())
      expect(state).toMatchObject({ status: 'DELIVERED', attempts: 1, recorded: 1 });
  });

  it('WEBHOOK_CONCURRENCY is a whole number from 1 to 64, 8 when unset', () => {
    const concurrency = (value?: string) =>
      loadConfig({
        ADMIN_TOKEN: 'x'.repeat(32),
        ...(value === undefined ? {} : { WEBHOOK_CONCURRENCY: value }),
      }).webhooks.concurrency;
    expect(concurrency()).toBe(8);
    expect(concurrency('64')).toBe(64);
    for (const bad of ['0', '65', '2.5', 'many'])
      expect(() => concurrency(bad)).toThrow(/WEBHOOK_CONCURRENCY/);
  });
});

describe('sequenceOf', () => {
  it('is the user of the event; events of no one user share one sequence', () => {
    expect(sequenceOf({ payload: { data: { partnerUid: 'u-1' } } })).toBe(
      sequenceOf({ payload: { data: { partnerUid: 'u-1' } } }),
    );
    expect(sequenceOf({ payload: { data: { partnerUid: 'u-1' } } })).not.toBe(
      sequenceOf({ payload: { data: { partnerUid: 'u-2' } } }),
    );
    expect(sequenceOf({ payload: { type: 'draw.run', data: { drawId: 'drw_1', winners: [] } } })).toBe(
      sequenceOf({ payload: null }),
    );
    expect(sequenceOf({ payload: { data: { partnerUid: '' } } })).not.toBe(
      sequenceOf({ payload: { data: {} } }),
    );
  });
});
