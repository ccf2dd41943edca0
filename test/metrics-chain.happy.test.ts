// The chain payout's metrics, scraped through HTTP, move with a real payout on the embedded
// development chain: the wallet's pending transactions while it waits, its token and gas balances
// as the payout read them before signing, and the confirmation time once it settles.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createChainPayout } from '../src/chain/outbox.ts';
import type { ClaimOutcome } from '../src/chain/outbox.ts';
import { chainObserverOf } from '../src/metrics/registry.ts';
import { startTestApp } from './harness.ts';
import type { TestContext } from './harness.ts';
import { balanceOf, chainBudget, startTestChain, TEST_KEK, userWithWallet } from './chain/chain-fixture.ts';
import { parseExposition, sampleValue } from './metrics-text.ts';

const TOKEN = 'metrics-token-0123456789';
let ctx: TestContext;
let chain: Awaited<ReturnType<typeof startTestChain>>;

beforeAll(async () => {
  [ctx, chain] = await Promise.all([
    startTestApp({ env: { METRICS_TOKEN: TOKEN, METRICS_DB_CACHE_MS: '0' } }),
    startTestChain(),
  ]);
});
afterAll(async () => {
  await ctx?.close();
  await chain?.cleanup();
});

async function scrape() {
  const response = await ctx.app.inject({
    method: 'GET',
    url: '/metrics',
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  expect(response.statusCode).toBe(200);
  return parseExposition(response.body);
}

it('pending transactions, wallet balances and confirmation time follow a payout', async () => {
  const budget = await chainBudget(ctx, chain, { decimals: 6 });
  const user = await userWithWallet(ctx, chain.chainId);
  const tokensBefore = await balanceOf(chain, budget.token, budget.walletAddress);
  const payout = createChainPayout({
    db: ctx.database.db,
    clock: ctx.clock,
    kek: TEST_KEK,
    observe: chainObserverOf(ctx.app.metrics),
  });
  // The store keeps addresses in lower case; the labels are as stored.
  const address = budget.walletAddress.toLowerCase();
  const wallet = { wallet: address, budget: budget.budgetId };
  expect(sampleValue(await scrape(), 'mrs_chain_pending_transactions', wallet)).toBe(0);

  const result = await payout.payClaims([
    { claimId: 'clm_metrics_1', budgetId: budget.budgetId, accountId: user.accountId, amount: '1500000' },
  ]);
  expect(result.signed).toHaveLength(1);
  const signed = await scrape();
  expect(sampleValue(signed, 'mrs_chain_pending_transactions', wallet)).toBe(1);
  expect(sampleValue(signed, 'mrs_chain_wallet_next_nonce', wallet)).toBe(1);
  // The balances the payout read before signing, in whole token units (6 decimals) and native units.
  const tokenBalance = sampleValue(signed, 'mrs_chain_wallet_token_balance', {
    wallet: address,
  });
  expect(tokenBalance).toBe(Number(tokensBefore) / 1e6);
  expect(sampleValue(signed, 'mrs_chain_wallet_gas_balance', { wallet: address })).toBeGreaterThan(0);

  const outcomes: ClaimOutcome[] = [];
  for (let i = 0; i < 50 && outcomes.length < 1; i++) outcomes.push(...(await payout.runCycle()));
  expect(outcomes.map((o) => o.status)).toEqual(['SUCCEEDED']);
  const settled = await scrape();
  expect(sampleValue(settled, 'mrs_chain_pending_transactions', wallet)).toBe(0);
  expect(sampleValue(settled, 'mrs_chain_oldest_pending_transaction_age_seconds', wallet)).toBe(0);
  expect(sampleValue(settled, 'mrs_chain_confirmation_seconds_count')).toBe(1);
  expect(sampleValue(settled, 'mrs_chain_rpc_errors_total')).toBeUndefined();
});
