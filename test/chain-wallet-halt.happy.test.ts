// A reward wallet halted by a reorg deeper than the confirmations is an alert everywhere an operator
// looks (issue #30 item 4): the worker's /readyz says not ready with the reason, the gauge
// mrs_chain_wallet_halted is 1, and the console's alerts route says why; recovering clears all three.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { createChainPayout } from '../src/chain/outbox.ts';
import { PayoutProgress } from '../src/metrics/payout-progress.ts';
import { startTestApp } from './harness.ts';
import type { TestContext } from './harness.ts';
import { chainBudget, startTestChain, TEST_KEK, userWithWallet } from './chain/chain-fixture.ts';
import { parseExposition, sampleValue } from './metrics-text.ts';

const TOKEN = 'metrics-token-halted-wallet-01';
let ctx: TestContext;
let chain: Awaited<ReturnType<typeof startTestChain>>;

beforeAll(async () => {
  [ctx, chain] = await Promise.all([
    // This process runs a payout worker (its progress is tracked): its /readyz speaks for the worker.
    startTestApp({
      payoutProgress: new PayoutProgress(),
      env: { METRICS_TOKEN: TOKEN, METRICS_DB_CACHE_MS: '0' },
    }),
    startTestChain(),
  ]);
});
afterAll(async () => {
  await ctx?.close();
  await chain?.cleanup();
});

const rpc = (method: string, params: unknown[] = []) =>
  chain.client.request({ method: method as never, params: params as never });
const readyz = () => ctx.app.inject({ method: 'GET', url: '/readyz' });
async function halted(wallet: { wallet: string; budget: string }) {
  const response = await ctx.app.inject({
    method: 'GET',
    url: '/metrics',
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  return sampleValue(parseExposition(response.body), 'mrs_chain_wallet_halted', wallet);
}

it('a halted wallet makes /readyz not ready, the gauge 1 and the alerts route say why; recover clears them', async () => {
  const budget = await chainBudget(ctx, chain, { decimals: 6 });
  const [a, b] = await Promise.all([userWithWallet(ctx, chain.chainId), userWithWallet(ctx, chain.chainId)]);
  const labels = { wallet: budget.walletAddress.toLowerCase(), budget: budget.budgetId };
  const payout = createChainPayout({ db: ctx.database.db, clock: ctx.clock, kek: TEST_KEK });
  const alerts = () => ctx.admin('GET', `/admin/v1/budgets/${budget.budgetId}/reward-wallet/alerts`);

  expect((await readyz()).statusCode).toBe(200);
  expect(await halted(labels)).toBe(0);
  expect((await alerts()).json()).toEqual({ walletId: budget.walletId, halted: null, devChainResetAt: null });

  const snapshot = await rpc('evm_snapshot');
  await payout.payClaims([
    { claimId: 'clm_halt_a', budgetId: budget.budgetId, accountId: a?.accountId as string, amount: '5' },
  ]);
  ctx.clock.advance(2_000);
  await payout.runCycle();
  await rpc('evm_revert', [snapshot]);
  await payout.payClaims([
    { claimId: 'clm_halt_b', budgetId: budget.budgetId, accountId: b?.accountId as string, amount: '6' },
  ]);

  const notReady = await readyz();
  expect(notReady.statusCode).toBe(503);
  expect(notReady.json()).toEqual({
    code: 3098,
    name: 'SERVICE_UNAVAILABLE',
    message: expect.stringMatching(/reward wallet 0x[0-9a-f]{40} of budget .* is halted: .*reorg deeper/),
  });
  expect(await halted(labels)).toBe(1);
  expect((await alerts()).json()).toEqual({
    walletId: budget.walletId,
    halted: { at: expect.any(String), reason: expect.stringMatching(/reorg deeper than the confirmations/) },
    devChainResetAt: null,
  });
  // Only the process that runs the payout worker says so: an API-only process stays ready.
  const apiOnly = await buildApp({
    config: ctx.config,
    database: ctx.database,
    clock: ctx.clock,
    logger: false,
  });
  expect((await apiOnly.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
  await apiOnly.close();

  const recovered = await ctx.admin('POST', `/admin/v1/reward-wallets/${budget.walletId}/recover`);
  expect(recovered.statusCode).toBe(200);
  expect((await readyz()).statusCode).toBe(200);
  expect(await halted(labels)).toBe(0);
  expect((await alerts()).json()).toMatchObject({ halted: null });
});
