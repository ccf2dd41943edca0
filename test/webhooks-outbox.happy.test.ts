// The webhook outbox (migration 0048, docs/webhooks.md "The outbox"): a statement's messages are
// written as one row per partner, and become webhook_messages before a delivery round, each row
// exactly once, whole or not at all, in event order; a listing of messages shows them at once.
// Through the public surface where there is one (achieve, the operator's listing), the fan-out
// itself where workers race for it. PGlite, PostgreSQL and Citus.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createAsset, partnerCall, rewardedMission, setupMission, startTestApp } from './harness.ts';
import type { MissionSetup, TestContext } from './harness.ts';
import { linkUsers } from './link-users.ts';
import { emptyOutbox, registerEndpoint } from './webhooks/endpoints.ts';
import { startReceiver } from './webhooks/receiver.ts';
import { startWebhookWorker } from '../src/webhooks/delivery.ts';
import { fanOutOutbox } from '../src/webhooks/store/outbox.ts';

let ctx: TestContext;
let setup: MissionSetup;
let endpointId: string;
const USERS = Array.from({ length: 12 }, (_, i) => `ob-${i}`);

beforeAll(async () => {
  ctx = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true' } });
  const assetId = await createAsset(ctx, { symbol: 'OBX', name: 'Outbox token', decimals: 18 });
  setup = await rewardedMission(ctx, assetId, { missionKey: 'outbox', total: '1000', amount: '1.5' });
  await linkUsers(ctx, setup.partnerId, USERS);
  // Never called: these tests make messages, they do not send them.
  ({ id: endpointId } = await registerEndpoint(ctx, setup.partnerId, 'http://127.0.0.1:9/hook', [
    'mission.completed',
    'claim.reserved',
    'claim.requested',
  ]));
});
afterAll(async () => {
  await second?.receiver.close();
  await ctx?.close();
});

const achieve = (partnerUid: string) =>
  partnerCall(ctx, setup, {
    method: 'POST',
    url: '/v1/achieve',
    body: { partnerUid, missionKey: 'outbox', completed: true },
  });

async function outbox() {
  const { rows } = await sql<{ rows: number; messages: number }>`
    SELECT count(*)::int AS rows, coalesce(sum(cardinality(endpoint_ids)), 0)::int AS messages
    FROM webhook_outbox`.execute(ctx.database.db);
  return rows[0];
}

async function messages() {
  return ctx.database.db
    .selectFrom('webhook_messages')
    .select(['id', 'seq', 'endpoint_id', 'partner_id', 'event_type', 'rank', 'payload', 'status'])
    .select(['next_attempt_at', 'created_at'])
    .orderBy('created_at')
    .orderBy('rank')
    .orderBy('seq')
    .execute();
}

/** Outbox rows written straight, `events` each: data {n, e} (row n, event e), their time `at`. */
async function writeRows(count: number, events: number, at: Date) {
  await writeRowsOf(setup.partnerId, endpointId, count, at, events);
}

async function writeRowsOf(partnerId: string, endpoint: string, count: number, at: Date, events = 1) {
  await sql`
    INSERT INTO webhook_outbox (partner_id, created_at, endpoint_ids, event_types, event_times, data)
    SELECT ${partnerId}, ${at}::timestamptz,
           array_fill(${endpoint}::text, ARRAY[${events}::int]),
           array_fill('mission.completed'::text, ARRAY[${events}::int]),
           array_fill(${at}::timestamptz, ARRAY[${events}::int]),
           (SELECT jsonb_agg(jsonb_build_object('n', n, 'e', e) ORDER BY e) FROM generate_series(1, ${events}::int) e)
    FROM generate_series(1, ${count}::int) n`.execute(ctx.database.db);
}

/** The row of two events whose second has no event type: its messages cannot be written. */
async function poisonRow(at: Date) {
  await sql`
    INSERT INTO webhook_outbox (partner_id, created_at, endpoint_ids, event_types, event_times, data)
    VALUES (${setup.partnerId}, ${at}::timestamptz, ARRAY[${endpointId}, ${endpointId}]::text[],
            ARRAY['mission.completed', 'no.such.event']::text[], ARRAY[${at}, ${at}]::timestamptz[],
            '[{"n": 1}, {"n": 2}]'::jsonb)`.execute(ctx.database.db);
}

/** A second partner, with an endpoint at a receiver of its own (made once). */
let second: { partnerId: string; endpointId: string; receiver: Awaited<ReturnType<typeof startReceiver>> };
async function otherPartner() {
  if (second) return second;
  const other = await setupMission(ctx, { missionKey: 'outbox-other' });
  const receiver = await startReceiver();
  const { id } = await registerEndpoint(ctx, other.partnerId, receiver.url, ['mission.completed']);
  second = { partnerId: other.partnerId, endpointId: id, receiver };
  return second;
}

describe('the webhook outbox', () => {
  it("holds completions' messages as rows, and makes them messages once, in event order", async () => {
    await emptyOutbox(ctx);
    const answers = await Promise.all(USERS.map(achieve));
    expect(answers.map((a) => a.statusCode)).toEqual(USERS.map(() => 200));
    // Each completion's three events, and not one message yet.
    const waiting = await outbox();
    expect(waiting?.messages).toBe(3 * USERS.length);
    expect(waiting?.rows).toBeGreaterThan(0);
    expect(waiting?.rows).toBeLessThanOrEqual(2 * USERS.length);
    expect(await messages()).toHaveLength(0);

    expect(await fanOutOutbox(ctx.database.db, { maxRows: 1000 })).toBe(waiting?.rows);
    expect(await outbox()).toEqual({ rows: 0, messages: 0 });
    expect(await fanOutOutbox(ctx.database.db, { maxRows: 1000 })).toBe(0);
    const made = await messages();
    expect(made).toHaveLength(3 * USERS.length);
    expect(new Set(made.map((m) => m.id)).size).toBe(made.length);
    for (const m of made) {
      expect(m.id).toMatch(/^msg_[0-9a-f]{32}$/);
      expect(m).toMatchObject({ endpoint_id: endpointId, partner_id: setup.partnerId, status: 'PENDING' });
      expect(m.next_attempt_at.getTime()).toBe(m.created_at.getTime());
      // Standard Webhooks' envelope, its timestamp the event's time.
      expect(m.payload).toEqual({
        type: m.event_type,
        timestamp: m.created_at.toISOString(),
        data: expect.objectContaining({ partnerUid: expect.stringMatching(/^ob-/) }),
      });
    }
    // Each user's three, in lifecycle order, the claim's amount as the API writes it.
    for (const user of USERS) {
      const own = made.filter(
        (m) => (m.payload as { data: { partnerUid: string } }).data.partnerUid === user,
      );
      expect(own.map((m) => [m.event_type, m.rank])).toEqual([
        ['mission.completed', 2],
        ['claim.reserved', 3],
        ['claim.requested', 4],
      ]);
      expect(own.map((m) => Number(m.seq))).toEqual([...own.map((m) => Number(m.seq))].sort((a, b) => a - b));
      expect((own[1]?.payload as { data: { amount: string } }).data.amount).toBe('1.5');
    }
  });

  it('turns each row into its messages once, whoever races for it', async () => {
    await emptyOutbox(ctx);
    await writeRows(40, 3, ctx.clock.now());
    const racer = async () => {
      let turned = 0;
      for (let step = -1; step !== 0; turned += step)
        step = await fanOutOutbox(ctx.database.db, { maxRows: 7 });
      return turned;
    };
    const turned = await Promise.all(Array.from({ length: 6 }, racer));
    expect(turned.reduce((a, b) => a + b, 0)).toBe(40);
    expect(await outbox()).toEqual({ rows: 0, messages: 0 });
    const made = await messages();
    expect(made).toHaveLength(120);
    const events = made.map((m) => {
      const { n, e } = (m.payload as { data: { n: number; e: number } }).data;
      return `${n}.${e}`;
    });
    expect(new Set(events).size).toBe(120);
  });

  it('leaves the rows whose events are younger than the worker asks', async () => {
    await emptyOutbox(ctx);
    const now = ctx.clock.now();
    await writeRows(2, 1, new Date(now.getTime() - 60_000));
    await writeRows(3, 1, now);
    expect(
      await fanOutOutbox(ctx.database.db, { maxRows: 100, dueBy: new Date(now.getTime() - 30_000) }),
    ).toBe(2);
    expect(await outbox()).toEqual({ rows: 3, messages: 3 });
    expect(await messages()).toHaveLength(2);
  });

  it("keeps a row whole when one of its messages cannot be written, and holds back only its partner's", async () => {
    await emptyOutbox(ctx);
    const other = await otherPartner();
    // A minute ago: due now for the worker on the app's clock.
    const at = new Date(ctx.clock.now().getTime() - 60_000);
    // The poison row: its second event's type is no event type, so its message has no rank, which
    // the table refuses. Behind it, more of its partner's rows than a round takes; the other
    // partner's rows are younger than all of them.
    await poisonRow(at);
    await writeRows(25, 1, at);
    await writeRowsOf(other.partnerId, other.endpointId, 3, new Date(at.getTime() + 1000));
    await expect(fanOutOutbox(ctx.database.db, { maxRows: 100 })).rejects.toThrow();
    // The poison row's partner keeps all of its rows, in their order; the other's became messages.
    expect(await outbox()).toEqual({ rows: 26, messages: 27 });
    expect((await messages()).map((m) => m.partner_id)).toEqual([
      other.partnerId,
      other.partnerId,
      other.partnerId,
    ]);

    // The delivery worker: the other partner's webhooks go, although the stuck partner's rows are
    // the oldest 26 and a round takes 10; its failure is logged once per retry period, not a round.
    await writeRowsOf(other.partnerId, other.endpointId, 4, new Date(at.getTime() + 2000));
    const logged: unknown[] = [];
    const worker = startWebhookWorker(ctx.database.db, ctx.clock, {
      timeoutMs: 2_000,
      requireHttps: false,
      allowPrivateAddresses: true,
      batchSize: 10,
      idleMs: 20,
      log: (error) => logged.push(error),
    });
    try {
      const started = performance.now();
      while (other.receiver.received.length < 7 && performance.now() - started < 15_000)
        await new Promise((resolve) => setTimeout(resolve, 20));
      await new Promise((resolve) => setTimeout(resolve, 300));
    } finally {
      await worker.stop();
    }
    expect(other.receiver.received).toHaveLength(7);
    expect(logged).toHaveLength(1);
    expect(String(logged[0])).toContain(`partner ${setup.partnerId} could not become messages`);
    expect(((logged[0] as Error).cause as Error).message).toMatch(/rank|null/);
    expect(await outbox()).toEqual({ rows: 26, messages: 27 });

    // An operator's listing answers (the stuck partner's messages not yet in it), never a 500.
    const listed = await ctx.admin('GET', '/admin/v1/webhook-messages?limit=500');
    expect(listed.statusCode, listed.body).toBe(200);
    const items = (listed.json() as { items: Array<{ partnerId: string; status: string }> }).items;
    expect(items.filter((m) => m.partnerId === other.partnerId).map((m) => m.status)).toEqual(
      Array.from({ length: 7 }, () => 'DELIVERED'),
    );
    expect(items.filter((m) => m.partnerId === setup.partnerId)).toEqual([]);
    const own = await ctx.admin('GET', `/admin/v1/webhook-messages?partnerId=${setup.partnerId}`);
    expect(own.statusCode, own.body).toBe(200);

    // Once the bad row is dealt with, the partner's rows go, in their order.
    await sql`DELETE FROM webhook_outbox WHERE 'no.such.event' = ANY (event_types)`.execute(ctx.database.db);
    expect(await fanOutOutbox(ctx.database.db, { maxRows: 100 })).toBe(25);
    expect(await outbox()).toEqual({ rows: 0, messages: 0 });
    await emptyOutbox(ctx);
  });

  it("an operator's listing shows a completion's messages at once", async () => {
    await emptyOutbox(ctx);
    await linkUsers(ctx, setup.partnerId, ['ob-late']);
    expect((await achieve('ob-late')).statusCode).toBe(200);
    expect((await outbox())?.messages).toBe(3);
    const listed = await ctx.admin('GET', `/admin/v1/webhook-messages?partnerId=${setup.partnerId}`);
    expect(listed.statusCode, listed.body).toBe(200);
    const items = (
      listed.json() as { items: Array<{ eventType: string; payload: { data: { partnerUid: string } } }> }
    ).items;
    expect(items.map((m) => m.eventType).sort()).toEqual([
      'claim.requested',
      'claim.reserved',
      'mission.completed',
    ]);
    expect(items.every((m) => m.payload.data.partnerUid === 'ob-late')).toBe(true);
    expect(await outbox()).toEqual({ rows: 0, messages: 0 });
  });
});
