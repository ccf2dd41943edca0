// The chain payout under the faults of issue #30: one network down while another pays on, tokens
// that do not move what they say, a pending transfer counted once, a wallet bound for another chain,
// and a reorg deeper than the confirmations that must stop the wallet instead of leaving it stuck.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address } from 'viem';
import { createChainPayout } from '../src/chain/outbox.ts';
import type { ClaimOutcome } from '../src/chain/outbox.ts';
import { createNetwork, createRewardWallet, viewRewardWallet } from '../src/chain/service.ts';
import { insertChainAsset } from '../src/chain/store.ts';
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

const rpc = (method: string, params: unknown[] = []) =>
  chain.client.request({ method: method as never, params: params as never });
const payoutsOf = (claimId: string) =>
  ctx.database.db.selectFrom('chain_payouts').selectAll().where('claim_id', '=', claimId).execute();

async function cycles(payout: ReturnType<typeof createChainPayout>, rounds: number): Promise<ClaimOutcome[]> {
  const outcomes: ClaimOutcome[] = [];
  for (let i = 0; i < rounds; i++) {
    ctx.clock.advance(2_000);
    outcomes.push(...(await payout.runCycle()));
  }
  return outcomes;
}

describe('one network down', () => {
  it(
    "pays on the other network in the same rounds; the down network's claims wait; one log line each way",
    { timeout: 180_000 },
    async () => {
      // A second node, on the oldest EVM supported (London): the test token must deploy there too.
      const second = await startTestChain({ hardfork: 'london' });
      try {
        const net2 = await createNetwork(ctx.database.db, ctx.clock, {
          name: 'second',
          chainId: second.chainId,
          rpcUrl: second.rpcUrl,
        });
        const live = await chainBudget(ctx, chain, { decimals: 6 });
        const dead = await chainBudget(ctx, second, { decimals: 6, networkId: net2.id });
        const users = await Promise.all([1, 2, 3, 4].map(() => userWithWallet(ctx, chain.chainId)));
        const lines: string[] = [];
        let killed = false;
        const payout = createChainPayout({
          db: ctx.database.db,
          clock: ctx.clock,
          kek: TEST_KEK,
          log: { warn: (m) => lines.push(m), info: (m) => lines.push(m) },
          // Signed on both networks while both answer; the second node dies before anything is sent.
          holdAt: async (step) => {
            if (step !== 'signed' || killed) return;
            killed = true;
            await second.cleanup();
          },
        });
        const claim = (id: string, budgetId: string, i: number) => ({
          claimId: id,
          budgetId,
          accountId: users[i]?.accountId as string,
          amount: String(100 + i),
        });
        const first = await payout.payClaims([
          claim('clm_live_1', live.budgetId, 0),
          claim('clm_dead_1', dead.budgetId, 1),
        ]);
        expect(first.signed.sort()).toEqual(['clm_dead_1', 'clm_live_1']);
        // With the second node down: its new claim waits (no failure, no attempt), the live one is signed.
        const again = await payout.payClaims([
          claim('clm_dead_2', dead.budgetId, 2),
          claim('clm_live_2', live.budgetId, 3),
        ]);
        expect(again).toMatchObject({
          signed: ['clm_live_2'],
          failed: [],
          waitingForNetwork: ['clm_dead_2'],
        });
        const outcomes = await cycles(payout, 4);
        expect(outcomes.map((o) => [o.claimId, o.status]).sort()).toEqual([
          ['clm_live_1', 'SUCCEEDED'],
          ['clm_live_2', 'SUCCEEDED'],
        ]);
        expect(await balanceOf(chain, live.token, users[0]?.address as Address)).toBe(100n);
        expect(await balanceOf(chain, live.token, users[3]?.address as Address)).toBe(103n);
        // The payout signed for the dead network is kept, never replaced while its node cannot be asked.
        expect(await payoutsOf('clm_dead_1')).toEqual([
          expect.objectContaining({
            status: 'SIGNED',
            replacements: 0,
            last_error: expect.stringMatching(/unreachable/),
          }),
        ]);
        expect(payout.unreachableNetworks()).toEqual([{ networkId: net2.id, reason: 'ECONNREFUSED' }]);
        expect(lines.filter((l) => /second/.test(l))).toEqual([
          expect.stringMatching(/unreachable \(ECONNREFUSED\)/),
        ]);
      } finally {
        await second.cleanup();
        // Out of the way of the other tests' payouts.
        await ctx.database.db
          .updateTable('chain_networks')
          .set({ disabled_at: ctx.clock.now() })
          .where('name', '=', 'second')
          .execute();
      }
    },
  );
});

describe('a transfer that does not move exactly the amount', () => {
  for (const kind of ['false', 'fee'] as const) {
    it(`a token whose transfer ${kind === 'false' ? 'returns false' : 'takes a fee'}: the payout is FAILED, final, with the reason`, async () => {
      const token = await chain.deployUnsupportedToken(kind);
      const network = await createNetwork(ctx.database.db, ctx.clock, {
        name: `dev ${kind}`,
        chainId: chain.chainId,
        rpcUrl: chain.rpcUrl,
      });
      // Registered directly (as before the registration check): the payout must catch it itself.
      const assetId = `ast_unsupported_${kind}`;
      await insertChainAsset(ctx.database.db, {
        id: assetId,
        symbol: 'BAD',
        name: 'Unsupported',
        decimals: 6,
        networkId: network.id,
        tokenAddress: token.toLowerCase(),
        now: ctx.clock.now(),
      });
      const budget = await ctx.admin('POST', '/admin/v1/budgets', {
        type: 'FIXED',
        assetId,
        name: `Unsupported ${kind}`,
        total: '1000000',
      });
      const budgetId = budget.json<{ id: string }>().id;
      const wallet = await createRewardWallet(ctx.database.db, ctx.clock, TEST_KEK, { budgetId });
      await chain.setNativeBalance(wallet.address as Address, 10n ** 21n);
      await chain.mintToken(token, wallet.address as Address, 10n ** 12n);
      const user = await userWithWallet(ctx, chain.chainId);
      const lines: string[] = [];
      const payout = createChainPayout({
        db: ctx.database.db,
        clock: ctx.clock,
        kek: TEST_KEK,
        log: { warn: (m) => lines.push(m), info: () => undefined },
      });
      const claim = { claimId: `clm_bad_${kind}`, budgetId, accountId: user.accountId, amount: '1000' };
      expect((await payout.payClaims([claim])).signed).toEqual([claim.claimId]);
      const outcomes = await cycles(payout, 2);
      expect(outcomes).toEqual([
        expect.objectContaining({
          claimId: claim.claimId,
          status: 'FAILED',
          final: true,
          reason: expect.stringMatching(kind === 'false' ? /moved nothing/ : /moved 10 from .* 990 from/),
        }),
      ]);
      expect(await payoutsOf(claim.claimId)).toEqual([expect.objectContaining({ status: 'FAILED' })]);
      expect(lines).toEqual([expect.stringMatching(/FAILED/)]);
      // Never paid a second time by itself: the claim's payout stays the one that was mined.
      expect((await payout.payClaims([claim])).signed).toEqual([claim.claimId]);
      expect(await payoutsOf(claim.claimId)).toHaveLength(1);
    });
  }

  it('registering a token whose dry-run transfer returns false is refused with UNSUPPORTED_TOKEN', async () => {
    const token = await chain.deployUnsupportedToken('false');
    const network = await createNetwork(ctx.database.db, ctx.clock, {
      name: 'dev check',
      chainId: chain.chainId,
      rpcUrl: chain.rpcUrl,
    });
    const answer = await ctx.admin('POST', '/admin/v1/chain-assets', {
      networkId: network.id,
      symbol: 'BAD',
      name: 'Returns false',
      tokenAddress: token,
    });
    expect(answer.statusCode).toBe(422);
    expect(answer.json()).toMatchObject({ code: 3621, name: 'UNSUPPORTED_TOKEN' });
  });
});

describe('amounts in flight counted once', () => {
  it('a transfer mined but short of its confirmations is not subtracted twice from an exactly funded wallet', async () => {
    const budget = await chainBudget(ctx, chain, { decimals: 6, fundTokens: 300n, confirmations: 10 });
    const [a, b] = await Promise.all([
      userWithWallet(ctx, chain.chainId),
      userWithWallet(ctx, chain.chainId),
    ]);
    const payout = createChainPayout({ db: ctx.database.db, clock: ctx.clock, kek: TEST_KEK });
    expect(
      (
        await payout.payClaims([
          {
            claimId: 'clm_once_a',
            budgetId: budget.budgetId,
            accountId: a?.accountId as string,
            amount: '100',
          },
        ])
      ).signed,
    ).toEqual(['clm_once_a']);
    expect(await cycles(payout, 1)).toEqual([]);
    const second = await payout.payClaims([
      { claimId: 'clm_once_b', budgetId: budget.budgetId, accountId: b?.accountId as string, amount: '200' },
    ]);
    expect(second).toMatchObject({ signed: ['clm_once_b'], failed: [] });
    // Both mined, none confirmed: the wallet owes nothing more than it holds.
    expect((await viewRewardWallet(ctx.database.db, budget.budgetId)).warning).toBeNull();
    await rpc('hardhat_mine', ['0x10']);
    expect((await cycles(payout, 1)).map((o) => o.status)).toEqual(['SUCCEEDED', 'SUCCEEDED']);
    expect(await balanceOf(chain, budget.token, budget.walletAddress)).toBe(0n);
  });
});

describe("the user's wallet and the asset's chain", () => {
  it('a wallet bound for another chain id is not paid on this one: the claim waits for a wallet', async () => {
    const budget = await chainBudget(ctx, chain, { decimals: 6 });
    const user = await userWithWallet(ctx, 1);
    const payout = createChainPayout({ db: ctx.database.db, clock: ctx.clock, kek: TEST_KEK });
    const result = await payout.payClaims([
      { claimId: 'clm_otherchain', budgetId: budget.budgetId, accountId: user.accountId, amount: '5' },
    ]);
    expect(result).toMatchObject({ signed: [], waitingForWallet: ['clm_otherchain'] });
    expect(await payoutsOf('clm_otherchain')).toEqual([]);
  });
});

describe('a reorg deeper than the confirmations', () => {
  it('stops the wallet with the reason (nothing more signed on a nonce the chain lost), instead of waiting forever', async () => {
    const budget = await chainBudget(ctx, chain, { decimals: 6 });
    const [a, b] = await Promise.all([
      userWithWallet(ctx, chain.chainId),
      userWithWallet(ctx, chain.chainId),
    ]);
    const lines: string[] = [];
    const payout = createChainPayout({
      db: ctx.database.db,
      clock: ctx.clock,
      kek: TEST_KEK,
      log: { warn: (m) => lines.push(m), info: () => undefined },
    });
    const snapshot = await rpc('evm_snapshot');
    await payout.payClaims([
      { claimId: 'clm_reorg_a', budgetId: budget.budgetId, accountId: a?.accountId as string, amount: '11' },
    ]);
    expect(await cycles(payout, 1)).toEqual([
      expect.objectContaining({ claimId: 'clm_reorg_a', status: 'SUCCEEDED' }),
    ]);
    await rpc('evm_revert', [snapshot]);
    const next = await payout.payClaims([
      { claimId: 'clm_reorg_b', budgetId: budget.budgetId, accountId: b?.accountId as string, amount: '12' },
    ]);
    expect(next).toMatchObject({ signed: [], failed: [], waitingForNetwork: ['clm_reorg_b'] });
    expect(await payoutsOf('clm_reorg_b')).toEqual([]);
    const wallet = await ctx.database.db
      .selectFrom('reward_wallets')
      .select(['halted_at', 'halted_reason'])
      .where('id', '=', budget.walletId)
      .executeTakeFirstOrThrow();
    expect(wallet.halted_reason).toMatch(/nonce .* is 0 but the outbox settled nonce 0/);
    expect(lines).toEqual([expect.stringMatching(/halted/)]);
  });
});
