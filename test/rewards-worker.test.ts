// The reward worker's jobs besides paying: bounded retry with backoff for failed payouts, one bad
// claim not holding up a batch, expiry of reservations nobody claims, and the sweep that requests a
// claim whose user linked while its completion was still in flight.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, setupMission, startTestApp } from './harness.ts';
import type { TestContext } from './harness.ts';
import { budgetOf, complete, createAsset, expectBudgetsBalanced, fixedRewardMission, ledgerSums, ok, workerCycle } from './rewards-helpers.ts';
import { ledgerProvider, onUserLinked, startRewardWorker } from '../src/rewards/index.ts';
import type { PayoutProvider } from '../src/rewards/index.ts';
import { MAX_PAYOUT_ATTEMPTS, retryDelayMs } from '../src/domain/claims.ts';

let ctx: TestContext;
let assetId: string;

beforeAll(async () => {
  ctx = await startTestApp({ now: '2026-11-22T03:00:00Z' });
  assetId = await createAsset(ctx);
});
afterAll(async () => {
  await ctx?.close();
});

const claimsOf = async (budgetId: string) =>
  ok<{ items: Array<{ id: string; status: string; attempts: number; reason: string | null; partnerUid: string; nextAttemptAt: string | null; accountId: string | null }> }>(
    await ctx.admin('GET', `/admin/v1/claims?budgetId=${budgetId}`),
  ).items;
const history = async (claimId: string) =>
  ok<{ items: Array<{ from: string | null; to: string }> }>(await ctx.admin('GET', `/admin/v1/claims/${claimId}/history`)).items.map((h) => `${h.from}>${h.to}`);

describe('failed payouts', () => {
  it('are retried after a growing backoff, at most MAX_PAYOUT_ATTEMPTS times, then wait for an operator', async () => {
    const setup = await fixedRewardMission(ctx, assetId, { missionKey: 'flaky', total: '10', amount: '1' });
    await createAccount(ctx, { link: { partnerId: setup.partnerId, partnerUid: 'flaky-user' } });
    await complete(ctx, setup, 'flaky-user', 'flaky');
    let calls = 0;
    const down: PayoutProvider = {
      name: 'wallet',
      pay: async (_trx, claims) => {
        calls += claims.length;
        return claims.map((c) => ({ claimId: c.id, ok: false as const, error: 'node unreachable' }));
      },
    };
    for (let attempt = 1; attempt <= MAX_PAYOUT_ATTEMPTS; attempt++) {
      await workerCycle(ctx, { provider: down });
      const [claim] = await claimsOf(setup.budgetId);
      expect(claim).toMatchObject({ status: 'FAILED', attempts: attempt, reason: 'wallet: node unreachable' });
      expect(calls).toBe(attempt);
      if (attempt < MAX_PAYOUT_ATTEMPTS) {
        // Not before the backoff has passed ...
        expect(claim?.nextAttemptAt).toBe(new Date(ctx.clock.now().getTime() + retryDelayMs(attempt)).toISOString());
        ctx.clock.advance(retryDelayMs(attempt) - 1);
        await workerCycle(ctx, { provider: down });
        expect(calls).toBe(attempt);
        ctx.clock.advance(1);
      } else {
        expect(claim?.nextAttemptAt).toBeNull();
      }
    }
    // Exhausted: no more attempts, however long we wait.
    ctx.clock.advance(24 * 3600 * 1000);
    await workerCycle(ctx, { provider: down });
    expect(calls).toBe(MAX_PAYOUT_ATTEMPTS);
    const [claim] = await claimsOf(setup.budgetId);
    expect(await budgetOf(ctx, setup.budgetId)).toMatchObject({ remaining: '9', reserved: '1', paid: '0' });

    // The operator asks again; the ledger pays it.
    ok(await ctx.admin('POST', `/admin/v1/claims/${claim?.id}/retry`));
    await workerCycle(ctx, { provider: ledgerProvider });
    expect((await claimsOf(setup.budgetId))[0]).toMatchObject({ status: 'SUCCEEDED' });
    const moves = await history(claim?.id as string);
    expect(moves.filter((m) => m === 'REQUESTED>FAILED')).toHaveLength(MAX_PAYOUT_ATTEMPTS);
    expect(moves.filter((m) => m === 'FAILED>REQUESTED')).toHaveLength(MAX_PAYOUT_ATTEMPTS);
    expect(moves.at(-1)).toBe('REQUESTED>SUCCEEDED');
    ctx.clock.set('2026-11-22T03:00:00Z');
  });

  it('a claim that makes the provider throw fails alone; the rest of the batch is paid', async () => {
    const setup = await fixedRewardMission(ctx, assetId, { missionKey: 'poison', total: '10', amount: '1' });
    for (const uid of ['p1', 'p2', 'p3']) {
      await createAccount(ctx, { link: { partnerId: setup.partnerId, partnerUid: uid } });
      await complete(ctx, setup, uid, 'poison');
    }
    const poisonId = (await claimsOf(setup.budgetId)).find((c) => c.partnerUid === 'p2')?.id;
    const picky: PayoutProvider = {
      name: 'picky',
      async pay(trx, claims, now) {
        if (claims.some((c) => c.id === poisonId)) throw new Error('cannot encode this transfer');
        return ledgerProvider.pay(trx, claims, now);
      },
    };
    await workerCycle(ctx, { provider: picky });
    const after = await claimsOf(setup.budgetId);
    expect(Object.fromEntries(after.map((c) => [c.partnerUid, c.status]))).toEqual({ p1: 'SUCCEEDED', p2: 'FAILED', p3: 'SUCCEEDED' });
    expect(after.find((c) => c.partnerUid === 'p2')).toMatchObject({ attempts: 1, reason: 'picky: cannot encode this transfer' });
    expect(Object.values(await ledgerSums(ctx)).every((s) => s === '0')).toBe(true);
  });
});

describe('reservations', () => {
  it('of users who never link expire after RESERVATION_TTL and give the amount back', async () => {
    const setup = await fixedRewardMission(ctx, assetId, { missionKey: 'expiring', total: '10', amount: '4' });
    await complete(ctx, setup, 'ghost', 'expiring');
    await complete(ctx, setup, 'late-linker', 'expiring');
    expect(await budgetOf(ctx, setup.budgetId)).toMatchObject({ remaining: '2', reserved: '8' });
    await workerCycle(ctx, { reservationTtlSeconds: 3600 });
    expect((await claimsOf(setup.budgetId)).map((c) => c.status)).toEqual(['RESERVED', 'RESERVED']);

    ctx.clock.advance(3600 * 1000);
    // One of them linked in the meantime (through connect, which requests the claim).
    const accountId = await createAccount(ctx);
    await ctx.database.db.transaction().execute(async (trx) => {
      await trx.insertInto('user_mappings').values({ partner_id: setup.partnerId, partner_uid: 'late-linker', account_id: accountId, region: 'KR', created_at: ctx.clock.now() }).execute();
      await onUserLinked(trx, { partnerId: setup.partnerId, partnerUid: 'late-linker', accountId }, ctx.clock.now());
    });
    await workerCycle(ctx, { reservationTtlSeconds: 3600 });
    const claims = await claimsOf(setup.budgetId);
    expect(Object.fromEntries(claims.map((c) => [c.partnerUid, [c.status, c.reason]]))).toEqual({
      ghost: ['REJECTED', 'RESERVATION_EXPIRED'],
      'late-linker': ['SUCCEEDED', null],
    });
    expect(await budgetOf(ctx, setup.budgetId)).toMatchObject({ remaining: '6', reserved: '0', paid: '4', rejected: 1 });
    const ghost = claims.find((c) => c.partnerUid === 'ghost') as { id: string };
    expect(await history(ghost.id)).toEqual(['null>RESERVED', 'RESERVED>REJECTED']);
    await expectBudgetsBalanced(ctx);
    ctx.clock.set('2026-11-22T03:00:00Z');
  });

  it('a claim that missed the link (its completion committed just after connect) is requested by the sweep', async () => {
    const setup = await fixedRewardMission(ctx, assetId, { missionKey: 'race', total: '10', amount: '1' });
    await complete(ctx, setup, 'racer', 'race');
    // The mapping appears without the connect handler seeing the claim, as in the race.
    const accountId = await createAccount(ctx);
    await ctx.database.db.insertInto('user_mappings').values({ partner_id: setup.partnerId, partner_uid: 'racer', account_id: accountId, region: 'KR', created_at: ctx.clock.now() }).execute();
    expect((await claimsOf(setup.budgetId))[0]).toMatchObject({ status: 'RESERVED', accountId: null });
    await workerCycle(ctx);
    const [claim] = await claimsOf(setup.budgetId);
    expect(claim).toMatchObject({ status: 'SUCCEEDED', accountId });
    expect(await history(claim?.id as string)).toEqual(['null>RESERVED', 'RESERVED>REQUESTED', 'REQUESTED>SUCCEEDED']);
  });
});

describe('the worker loop', () => {
  it('started in the process, pays what arrives, and stops after its batch', async () => {
    const setup = await fixedRewardMission(ctx, assetId, { missionKey: 'loop', total: '100', amount: '1' });
    const worker = startRewardWorker(ctx.database.db, ctx.clock, { idleMs: 10, batchSize: 3 });
    try {
      for (let i = 0; i < 10; i++) {
        await createAccount(ctx, { link: { partnerId: setup.partnerId, partnerUid: `loop-${i}` } });
        await complete(ctx, setup, `loop-${i}`, 'loop');
      }
      for (let i = 0; i < 500 && (await claimsOf(setup.budgetId)).some((c) => c.status !== 'SUCCEEDED'); i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    } finally {
      await worker.stop();
    }
    expect((await claimsOf(setup.budgetId)).map((c) => c.status)).toEqual(Array(10).fill('SUCCEEDED'));
    expect(await budgetOf(ctx, setup.budgetId)).toMatchObject({ paid: '10', reserved: '0', remaining: '90' });
  });

  it('unlinked users in a group reward: nothing is paid until they link', async () => {
    const setup = await setupMission(ctx, { missionKey: 'g1', recurrence: 'ONE_TIME' });
    ok(await ctx.admin('POST', `/admin/v1/mission-groups/${setup.groupId}/missions`, { missionKey: 'g2', title: 'Two', recurrence: 'ONE_TIME' }), 201);
    const budgetId = (await ctx.admin('POST', '/admin/v1/budgets', { type: 'FIXED', assetId, name: 'g', total: '5' })).json<{ id: string }>().id;
    ok(await ctx.admin('PUT', `/admin/v1/mission-groups/${setup.groupId}/reward`, { type: 'FIXED', budgetId, amount: '5' }));
    await complete(ctx, setup, 'grouper', 'g1');
    await complete(ctx, setup, 'grouper', 'g2');
    await complete(ctx, setup, 'grouper', 'g2');
    await workerCycle(ctx);
    expect((await claimsOf(budgetId)).map((c) => c.status)).toEqual(['RESERVED']);
  });
});
