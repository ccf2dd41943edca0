// A paid claim raises the recipient's on-chain balance by exactly its amount: tokens of 6 and 18
// decimals and the native coin, many claims in one pipelined batch, each claim paid once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChainPayout } from '../src/chain/outbox.ts';
import type { ClaimOutcome } from '../src/chain/outbox.ts';
import { startTestApp } from './harness.ts';
import type { TestContext } from './harness.ts';
import { balanceOf, chainBudget, startTestChain, TEST_KEK, userWithWallet } from './chain/chain-fixture.ts';

let ctx: TestContext;
let chain: Awaited<ReturnType<typeof startTestChain>>;

beforeAll(async () => {
  [ctx, chain] = await Promise.all([startTestApp(), startTestChain()]);
});
afterAll(async () => {
  await ctx?.close();
  await chain?.cleanup();
});

async function settleAll(
  payout: ReturnType<typeof createChainPayout>,
  expected: number,
): Promise<ClaimOutcome[]> {
  const outcomes: ClaimOutcome[] = [];
  for (let i = 0; i < 50 && outcomes.length < expected; i++) outcomes.push(...(await payout.runCycle()));
  return outcomes;
}

describe('chain payout: amounts arrive exactly', () => {
  for (const kind of [
    { label: 'a token with 6 decimals', decimals: 6, native: false, amount: '1234567' },
    { label: 'a token with 18 decimals', decimals: 18, native: false, amount: '1000000000000000001' },
    { label: 'the native coin', decimals: 18, native: true, amount: '7000000000000000' },
  ]) {
    it(`pays ${kind.label}: the recipient gains exactly the amount, the claim succeeds with its hash`, async () => {
      const budget = await chainBudget(ctx, chain, { decimals: kind.decimals, native: kind.native });
      const user = await userWithWallet(ctx, chain.chainId);
      const settled: ClaimOutcome[] = [];
      const payout = createChainPayout({
        db: ctx.database.db,
        clock: ctx.clock,
        kek: TEST_KEK,
        onSettled: async (_trx, outcomes) => void settled.push(...outcomes),
      });
      const before = await balanceOf(chain, budget.token, user.address);
      const claimId = `clm_${kind.decimals}_${kind.native}`;
      const result = await payout.payClaims([
        { claimId, budgetId: budget.budgetId, accountId: user.accountId, amount: kind.amount },
      ]);
      expect(result).toEqual({ signed: [claimId], waitingForWallet: [], failed: [], waitingForNetwork: [] });
      const outcomes = await settleAll(payout, 1);
      expect(outcomes).toEqual([expect.objectContaining({ claimId, status: 'SUCCEEDED', reason: null })]);
      expect(settled).toEqual(outcomes);
      expect((await balanceOf(chain, budget.token, user.address)) - before).toBe(BigInt(kind.amount));
      const row = await ctx.database.db
        .selectFrom('chain_payouts')
        .selectAll()
        .where('claim_id', '=', claimId)
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({
        status: 'CONFIRMED',
        mined_tx_hash: outcomes[0]?.txHash,
        to_address: user.address.toLowerCase(),
      });
      // Handing the same claim over again signs nothing new.
      expect(
        (
          await payout.payClaims([
            { claimId, budgetId: budget.budgetId, accountId: user.accountId, amount: kind.amount },
          ])
        ).signed,
      ).toEqual([claimId]);
      expect(await payout.runCycle()).toEqual([]);
      expect((await balanceOf(chain, budget.token, user.address)) - before).toBe(BigInt(kind.amount));
    });
  }

  it('signs a batch with consecutive nonces, broadcasts it together, and pays each claim once', async () => {
    const budget = await chainBudget(ctx, chain, { decimals: 6 });
    const users = await Promise.all(Array.from({ length: 40 }, () => userWithWallet(ctx, chain.chainId)));
    const payout = createChainPayout({ db: ctx.database.db, clock: ctx.clock, kek: TEST_KEK });
    const claims = users.map((u, i) => ({
      claimId: `clm_batch_${i}`,
      budgetId: budget.budgetId,
      accountId: u.accountId,
      amount: String(1000 + i),
    }));
    const result = await payout.payClaims(claims);
    expect(result.signed).toHaveLength(40);
    const rows = await ctx.database.db
      .selectFrom('chain_payouts')
      .select(['nonce'])
      .where('wallet_id', '=', budget.walletId)
      .orderBy('nonce')
      .execute();
    expect(rows.map((r) => Number(r.nonce))).toEqual(Array.from({ length: 40 }, (_, i) => i));
    const outcomes = await settleAll(payout, 40);
    expect(outcomes.filter((o) => o.status === 'SUCCEEDED')).toHaveLength(40);
    for (const [i, user] of users.entries())
      expect(await balanceOf(chain, budget.token, user.address)).toBe(BigInt(1000 + i));
  });

  it('leaves claims of users without a bound wallet waiting, and fails claims of a budget without a wallet', async () => {
    const budget = await chainBudget(ctx, chain, { decimals: 6 });
    const { createAccount } = await import('./harness.ts');
    const accountId = await createAccount(ctx);
    const payout = createChainPayout({ db: ctx.database.db, clock: ctx.clock, kek: TEST_KEK });
    const result = await payout.payClaims([
      { claimId: 'clm_nowallet', budgetId: budget.budgetId, accountId, amount: '5' },
      { claimId: 'clm_nobudgetwallet', budgetId: 'bdg_unknown', accountId, amount: '5' },
    ]);
    expect(result.waitingForWallet).toEqual(['clm_nowallet']);
    expect(result.failed).toEqual([
      expect.objectContaining({ claimId: 'clm_nobudgetwallet', status: 'FAILED' }),
    ]);
  });
});
