// A payout provider that fails: the claim goes FAILED with a backoff, is requested again when the
// backoff has passed, stops after MAX_PAYOUT_ATTEMPTS, and an operator can retry it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, partnerCall, setupMission, startTestApp } from './harness.ts';
import type { TestContext } from './harness.ts';
import { runPayoutBatch } from '../src/payout/worker.ts';
import { ledgerProvider } from '../src/payout/ledger.ts';
import type { PayoutProvider } from '../src/payout/ledger.ts';
import { MAX_PAYOUT_ATTEMPTS, retryDelayMs } from '../src/domain/claims.ts';

let ctx: TestContext;
let claimId: string;

const failing: PayoutProvider = {
  name: 'failing',
  async pay() {
    throw new Error('provider is down');
  },
};

beforeAll(async () => {
  ctx = await startTestApp({ now: '2026-11-22T03:00:00Z' });
  const setup = await setupMission(ctx, { missionKey: 'retry', recurrence: 'ONE_TIME' });
  const assetId = (
    await ctx.admin('POST', '/admin/v1/reward-assets', { symbol: 'R', name: 'R', decimals: 0 })
  ).json().id;
  const budgetId = (
    await ctx.admin('POST', '/admin/v1/budgets', { type: 'FIXED', assetId, name: 'r', total: '10' })
  ).json().id;
  await ctx.admin('PUT', `/admin/v1/missions/${setup.missionId}/reward`, {
    type: 'FIXED',
    budgetId,
    amount: '1',
  });
  await createAccount(ctx, { link: { partnerId: setup.partnerId, partnerUid: 'r-user' } });
  await partnerCall(ctx, setup, {
    method: 'POST',
    url: '/v1/achieve',
    body: { partnerUid: 'r-user', missionKey: 'retry', completed: true },
  });
  claimId = (await ctx.admin('GET', '/admin/v1/claims?partnerUid=r-user')).json().items[0].id;
});
afterAll(async () => {
  await ctx?.close();
});

const claim = async () => (await ctx.admin('GET', '/admin/v1/claims?partnerUid=r-user')).json().items[0];

describe('payout retries', () => {
  it('fails, backs off, retries a bounded number of times, then waits for an operator', async () => {
    expect(await runPayoutBatch(ctx.database.db, ctx.clock, failing)).toBe(1);
    expect(await claim()).toMatchObject({ status: 'FAILED', attempts: 1, reason: 'provider is down' });
    // Not before the backoff.
    expect(await runPayoutBatch(ctx.database.db, ctx.clock, failing)).toBe(0);
    for (let attempt = 1; attempt < MAX_PAYOUT_ATTEMPTS; attempt++) {
      ctx.clock.advance(retryDelayMs(attempt) + 1);
      expect(await runPayoutBatch(ctx.database.db, ctx.clock, failing)).toBe(1);
    }
    expect(await claim()).toMatchObject({ status: 'FAILED', attempts: MAX_PAYOUT_ATTEMPTS });
    ctx.clock.advance(24 * 3600 * 1000);
    expect(await runPayoutBatch(ctx.database.db, ctx.clock, failing)).toBe(0);

    // The operator retries once the provider is back.
    expect((await ctx.admin('POST', `/admin/v1/claims/${claimId}/retry`)).statusCode).toBe(204);
    expect(await runPayoutBatch(ctx.database.db, ctx.clock, ledgerProvider)).toBe(1);
    expect(await claim()).toMatchObject({ status: 'SUCCEEDED' });
    const history = (await ctx.admin('GET', `/admin/v1/claims/${claimId}/history`))
      .json()
      .items.map((h: { to: string }) => h.to);
    expect(history.filter((to: string) => to === 'FAILED')).toHaveLength(MAX_PAYOUT_ATTEMPTS);
    expect(history.at(-1)).toBe('SUCCEEDED');
  });
});
