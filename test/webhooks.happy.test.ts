// Webhooks through the public surface: an operator registers an endpoint; a completion produces
// mission.completed then claim.reserved and claim.requested, the payout claim.succeeded; each
// arrives at a real receiver on loopback, signed (verified with the standardwebhooks package);
// a receiver down for a while gets the message later (driven by the injected clock); a message is
// re-sent on request; a rolled secret signs twice; a rolled-back change sends nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partnerCall, setupMission, startTestApp } from './harness.ts';
import type { MissionSetup, TestContext } from './harness.ts';
import { linkUsers } from './link-users.ts';
import { startReceiver } from './webhooks/receiver.ts';
import { runWebhookBatch } from '../src/webhooks/delivery.ts';
import { fanOutOutbox } from '../src/webhooks/store/outbox.ts';
import { runPayoutBatch } from '../src/payout/worker.ts';
import { insertMapping } from '../src/linking/store.ts';

let ctx: TestContext;
let setup: MissionSetup;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let endpoint: { id: string; secret: string };

const deliver = () =>
  runWebhookBatch(ctx.database.db, ctx.clock, { ...ctx.config.webhooks, timeoutMs: 2000, random: () => 0.5 });

beforeAll(async () => {
  ctx = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true' } });
  receiver = await startReceiver();
  setup = await setupMission(ctx, { missionKey: 'daily-login', recurrence: 'DAILY' });
  const assetId = (
    await ctx.admin('POST', '/admin/v1/reward-assets', { symbol: 'PNT', name: 'Points', decimals: 2 })
  ).json().id;
  const budgetId = (
    await ctx.admin('POST', '/admin/v1/budgets', { type: 'FIXED', assetId, name: 'B', total: '1000' })
  ).json().id;
  const rule = await ctx.admin('PUT', `/admin/v1/missions/${setup.missionId}/reward`, {
    type: 'FIXED',
    budgetId,
    amount: '12.5',
  });
  expect(rule.statusCode, rule.body).toBe(200);
  await linkUsers(ctx, setup.partnerId, ['u-1', 'u-2', 'u-3']);
});
afterAll(async () => {
  await receiver?.close();
  await ctx?.close();
});

const achieve = (partnerUid: string) =>
  partnerCall(ctx, setup, {
    method: 'POST',
    url: '/v1/achieve',
    body: { partnerUid, missionKey: 'daily-login', completed: true },
  });

describe('webhooks', () => {
  it('registers an endpoint and shows its whsec_ secret only once', async () => {
    const created = await ctx.admin('POST', `/admin/v1/partners/${setup.partnerId}/webhook-endpoints`, {
      url: receiver.url,
      events: ['mission.completed', 'claim.reserved', 'claim.requested', 'claim.succeeded', 'user.linked'],
    });
    expect(created.statusCode, created.body).toBe(201);
    endpoint = created.json();
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(Buffer.from(endpoint.secret.slice(6), 'base64')).toHaveLength(24);
    const listed = await ctx.admin('GET', `/admin/v1/webhook-endpoints?partnerId=${setup.partnerId}`);
    expect(listed.json().items).toHaveLength(1);
    expect(listed.body).not.toContain(endpoint.secret.slice(6));
    expect(listed.json().items[0]).not.toHaveProperty('secret');
  });

  it('a completion sends mission.completed, claim.reserved, claim.requested in order, then claim.succeeded, signed', async () => {
    expect((await achieve('u-1')).statusCode).toBe(200);
    expect(await deliver()).toBe(3);
    await runPayoutBatch(ctx.database.db, ctx.clock);
    expect(await deliver()).toBe(1);
    const got = receiver.verified(endpoint.secret);
    expect(got.map((m) => m.payload.type)).toEqual([
      'mission.completed',
      'claim.reserved',
      'claim.requested',
      'claim.succeeded',
    ]);
    expect(got[0]?.payload.data).toMatchObject({ partnerUid: 'u-1', missionKey: 'daily-login' });
    expect(got[3]?.payload.data).toMatchObject({
      partnerUid: 'u-1',
      status: 'SUCCEEDED',
      amount: '12.5',
      source: 'MISSION',
      transactionHash: null,
    });
    expect(got[3]?.payload.timestamp).toBe(ctx.clock.now().toISOString());
    expect(new Set(got.map((m) => m.id)).size).toBe(4);
    // Ids lead with the writing statement's time in ms (12 hex digits, then 20 random ones), so the
    // outbox's primary key grows at its right edge instead of taking a random page per message.
    for (const { id } of got) {
      expect(id).toMatch(/^msg_[0-9a-f]{32}$/);
      expect(Math.abs(parseInt(id.slice(4, 16), 16) - Date.now())).toBeLessThan(60_000);
    }
    const messages = await ctx.admin(
      'GET',
      `/admin/v1/webhook-messages?endpointId=${endpoint.id}&status=DELIVERED`,
    );
    expect(messages.json().items).toHaveLength(4);
  });

  it('a receiver that is down for a while gets the message when it is back, every attempt recorded', async () => {
    receiver.received.length = 0;
    receiver.answer(503);
    expect((await achieve('u-2')).statusCode).toBe(200);
    expect(await deliver()).toBe(3);
    expect(await deliver()).toBe(0); // nothing due before the backoff
    ctx.clock.advance(5_000);
    expect(await deliver()).toBe(3); // second failure; next in 5 min
    receiver.answer(200);
    ctx.clock.advance(60_000);
    expect(await deliver()).toBe(0);
    ctx.clock.advance(4 * 60_000);
    expect(await deliver()).toBe(3);
    const ids = receiver.verified(endpoint.secret).map((m) => m.id);
    expect(ids).toHaveLength(9);
    expect(new Set(ids).size).toBe(3); // the same webhook-id on every attempt of a message
    const one = await ctx.admin('GET', `/admin/v1/webhook-messages/${ids[0]}`);
    expect(one.json()).toMatchObject({ status: 'DELIVERED', attempts: 3, lastError: null });
    expect(one.json().attemptLog.map((a: { statusCode: number }) => a.statusCode)).toEqual([503, 503, 200]);
  });

  it('an operator re-sends a message with the same webhook-id', async () => {
    receiver.received.length = 0;
    const [latest] = (
      await ctx.admin('GET', `/admin/v1/webhook-messages?endpointId=${endpoint.id}&limit=1`)
    ).json().items as Array<{ id: string }>;
    const resent = await ctx.admin('POST', `/admin/v1/webhook-messages/${latest?.id}/resend`);
    expect(resent.statusCode, resent.body).toBe(200);
    expect(resent.json()).toMatchObject({ status: 'PENDING', attempts: 0 });
    expect(await deliver()).toBe(1);
    expect(receiver.verified(endpoint.secret).map((m) => m.id)).toEqual([latest?.id]);
  });

  it('after a roll both the new and the old secret verify until the grace period ends', async () => {
    receiver.received.length = 0;
    const rolled = await ctx.admin('POST', `/admin/v1/webhook-endpoints/${endpoint.id}/roll-secret`);
    expect(rolled.statusCode, rolled.body).toBe(200);
    const secret = rolled.json().secret as string;
    expect(secret).not.toBe(endpoint.secret);
    expect((await achieve('u-3')).statusCode).toBe(200);
    await deliver();
    expect(receiver.verified(secret)).toHaveLength(3);
    expect(receiver.verified(endpoint.secret)).toHaveLength(3);
    expect(receiver.received[0]?.headers['webhook-signature']?.split(' ')).toHaveLength(2);
    receiver.received.length = 0;
    ctx.clock.advance(25 * 3600_000);
    await runPayoutBatch(ctx.database.db, ctx.clock);
    await deliver();
    expect(receiver.verified(secret).length).toBeGreaterThan(0);
    expect(() => receiver.verified(endpoint.secret)).toThrow();
    endpoint.secret = secret;
  });

  it('a rolled-back change sends nothing; the same change committed sends user.linked', async () => {
    const count = async () =>
      (await ctx.admin('GET', `/admin/v1/webhook-messages?endpointId=${endpoint.id}&limit=500`)).json().items
        .length as number;
    const before = await count();
    await ctx.database.db
      .insertInto('platform_accounts')
      .values({ id: 'acc_rollback', issuer: 'test', subject: 'acc_rollback', display_name: null })
      .execute();
    const link = (trx: Parameters<typeof insertMapping>[0]) =>
      insertMapping(trx, {
        partnerId: setup.partnerId,
        partnerUid: 'u-9',
        accountId: 'acc_rollback',
        region: 'KR',
        now: ctx.clock.now(),
      });
    await expect(
      ctx.database.db.transaction().execute(async (trx) => {
        expect(await link(trx)).toBe(true);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await count()).toBe(before);
    await ctx.database.db.transaction().execute(async (trx) => void (await link(trx)));
    expect(await count()).toBe(before + 1);
    receiver.received.length = 0;
    await deliver();
    expect(receiver.verified(endpoint.secret).map((m) => m.payload)).toMatchObject([
      { type: 'user.linked', data: { partnerUid: 'u-9', region: 'KR' } },
    ]);
  });

  it('events nobody subscribed to, and partners without endpoints, write nothing', async () => {
    const other = await setupMission(ctx, { missionKey: 'other', recurrence: 'DAILY' });
    await linkUsers(ctx, other.partnerId, ['o-1']);
    await partnerCall(ctx, other, {
      method: 'POST',
      url: '/v1/achieve',
      body: { partnerUid: 'o-1', missionKey: 'other', completed: true },
    });
    const waiting = await ctx.database.db
      .selectFrom('webhook_outbox')
      .select('id')
      .where('partner_id', '=', other.partnerId)
      .execute();
    expect(waiting).toHaveLength(0);
    await fanOutOutbox(ctx.database.db, { maxRows: 1000 });
    const rows = await ctx.database.db
      .selectFrom('webhook_messages')
      .select('id')
      .where('partner_id', '=', other.partnerId)
      .execute();
    expect(rows).toHaveLength(0);
    const failed = await ctx.database.db
      .selectFrom('webhook_messages')
      .select('id')
      .where('event_type', 'in', ['claim.failed', 'claim.rejected', 'user.unlinked'])
      .execute();
    expect(failed).toHaveLength(0);
  });
});
