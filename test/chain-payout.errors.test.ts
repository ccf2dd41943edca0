// What goes wrong on a chain and how the outbox recovers: a wallet short of tokens or gas fails
// the claim with a clear reason and pays after a top-up; a revert reports the chain's reason and a
// retry uses a new nonce; a dropped transaction is re-broadcast and paid once; a stuck one is
// replaced with the same nonce and a higher fee; an RPC endpoint that is down makes payouts wait.
import { connect, createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeAbiParameters, keccak256 } from 'viem';
import type { Address } from 'viem';
import { createChainPayout } from '../src/chain/outbox.ts';
import type { ClaimOutcome } from '../src/chain/outbox.ts';
import { createNetwork } from '../src/chain/service.ts';
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

const payoutOf = (claimId: string) =>
  ctx.database.db
    .selectFrom('chain_payouts')
    .selectAll()
    .where('claim_id', '=', claimId)
    .orderBy('signed_at')
    .execute();
const rpc = (method: string, params: unknown[] = []) =>
  chain.client.request({ method: method as never, params: params as never });

async function settle(payout: ReturnType<typeof createChainPayout>, rounds = 5): Promise<ClaimOutcome[]> {
  const outcomes: ClaimOutcome[] = [];
  for (let i = 0; i < rounds; i++) outcomes.push(...(await payout.runCycle()));
  return outcomes;
}

describe('a reward wallet short of funds', () => {
  it('without tokens: the claim fails with the reason, signs nothing, and pays after a top-up', async () => {
    const budget = await chainBudget(ctx, chain, { decimals: 6, fundTokens: 0n });
    const user = await userWithWallet(ctx, chain.chainId);
    const payout = createChainPayout({ db: ctx.database.db, clock: ctx.clock, kek: TEST_KEK });
    const claim = {
      claimId: 'clm_notokens',
      budgetId: budget.budgetId,
      accountId: user.accountId,
      amount: '500',
    };
    const first = await payout.payClaims([claim]);
    expect(first.failed).toEqual([
      expect.objectContaining({
        claimId: 'clm_notokens',
        status: 'FAILED',
        reason: expect.stringMatching(/lacks TST: it holds 0 .*needs 500/),
      }),
    ]);
    expect(await payoutOf('clm_notokens')).toEqual([]);
    await chain.mintToken(budget.token as Address, budget.walletAddress, 500n);
    expect((await payout.payClaims([claim])).signed).toEqual(['clm_notokens']);
    expect(await settle(payout, 2)).toEqual([
      expect.objectContaining({ claimId: 'clm_notokens', status: 'SUCCEEDED' }),
    ]);
    expect(await balanceOf(chain, budget.token, user.address)).toBe(500n);
  });

  it('without gas: the claim fails with the reason and pays after the wallet gets gas', async () => {
    const budget = await chainBudget(ctx, chain, { decimals: 18, fundGasWei: 0n });
    const user = await userWithWallet(ctx, chain.chainId);
    const payout = createChainPayout({ db: ctx.database.db, clock: ctx.clock, kek: TEST_KEK });
    const claim = {
      claimId: 'clm_nogas',
      budgetId: budget.budgetId,
      accountId: user.accountId,
      amount: '42',
    };
    expect((await payout.payClaims([claim])).failed).toEqual([
      expect.objectContaining({ reason: expect.stringMatching(/lacks gas/) }),
    ]);
    await chain.setNativeBalance(budget.walletAddress, 10n ** 18n);
    expect((await payout.payClaims([claim])).signed).toEqual(['clm_nogas']);
    expect(await settle(payout, 2)).toEqual([
      expect.objectContaining({ claimId: 'clm_nogas', status: 'SUCCEEDED' }),
    ]);
    expect(await balanceOf(chain, budget.token, user.address)).toBe(42n);
  });

  it('a transfer that reverts on chain fails the claim with the chain reason; the retry takes a new nonce', async () => {
    const budget = await chainBudget(ctx, chain, { decimals: 6, fundTokens: 1000n });
    const user = await userWithWallet(ctx, chain.chainId);
    // Between signing and broadcast the wallet's tokens vanish (OpenZeppelin 5 keeps balances at slot 0).
    const slot = keccak256(
      encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [budget.walletAddress, 0n]),
    );
    let drained = false;
    const payout = createChainPayout({
      db: ctx.database.db,
      clock: ctx.clock,
      kek: TEST_KEK,
      holdAt: async (step) => {
        if (step !== 'signed' || drained) return;
        drained = true;
        await rpc('hardhat_setStorageAt', [budget.token, slot, `0x${'0'.repeat(64)}`]);
      },
    });
    const claim = {
      claimId: 'clm_revert',
      budgetId: budget.budgetId,
      accountId: user.accountId,
      amount: '700',
    };
    await payout.payClaims([claim]);
    const outcomes = await settle(payout, 2);
    expect(outcomes).toEqual([
      expect.objectContaining({
        claimId: 'clm_revert',
        status: 'FAILED',
        reason: expect.stringMatching(/ERC20InsufficientBalance/),
      }),
    ]);
    expect((await payoutOf('clm_revert'))[0]).toMatchObject({ status: 'REVERTED', nonce: 0 });
    await chain.mintToken(budget.token as Address, budget.walletAddress, 700n);
    expect((await payout.payClaims([claim])).signed).toEqual(['clm_revert']);
    expect(await settle(payout, 2)).toEqual([
      expect.objectContaining({ claimId: 'clm_revert', status: 'SUCCEEDED' }),
    ]);
    expect((await payoutOf('clm_revert')).map((p) => [p.status, Number(p.nonce)])).toEqual([
      ['REVERTED', 0],
      ['CONFIRMED', 1],
    ]);
    expect(await balanceOf(chain, budget.token, user.address)).toBe(700n);
  });
});

describe('transactions that do not stick', () => {
  it('a dropped transaction (the chain reverted to a snapshot) is re-broadcast as is and paid once', async () => {
    const budget = await chainBudget(ctx, chain, { decimals: 6 });
    const user = await userWithWallet(ctx, chain.chainId);
    const payout = createChainPayout({
      db: ctx.database.db,
      clock: ctx.clock,
      kek: TEST_KEK,
      rebroadcastAfterMs: 15_000,
      replaceAfterMs: 600_000,
    });
    const snapshot = await rpc('evm_snapshot');
    await payout.payClaims([
      { claimId: 'clm_dropped', budgetId: budget.budgetId, accountId: user.accountId, amount: '321' },
    ]);
    expect(await balanceOf(chain, budget.token, user.address)).toBe(321n);
    await rpc('evm_revert', [snapshot]);
    expect(await balanceOf(chain, budget.token, user.address)).toBe(0n);
    expect(await settle(payout, 2)).toEqual([]);
    ctx.clock.advance(16_000);
    expect(await settle(payout, 3)).toEqual([
      expect.objectContaining({ claimId: 'clm_dropped', status: 'SUCCEEDED' }),
    ]);
    expect(await balanceOf(chain, budget.token, user.address)).toBe(321n);
    const [row] = await payoutOf('clm_dropped');
    expect(row?.broadcasts).toBe(2);
    expect(row?.replacements).toBe(0);
  });

  it('a stuck transaction is replaced with the same nonce and a higher fee; one of them is mined, once', async () => {
    const budget = await chainBudget(ctx, chain, { decimals: 6 });
    const user = await userWithWallet(ctx, chain.chainId);
    const payout = createChainPayout({
      db: ctx.database.db,
      clock: ctx.clock,
      kek: TEST_KEK,
      rebroadcastAfterMs: 600_000,
      replaceAfterMs: 60_000,
    });
    await rpc('evm_setAutomine', [false]);
    try {
      await payout.payClaims([
        { claimId: 'clm_stuck', budgetId: budget.budgetId, accountId: user.accountId, amount: '99' },
      ]);
      ctx.clock.advance(61_000);
      expect(await payout.runCycle()).toEqual([]);
      const [row] = await payoutOf('clm_stuck');
      expect(row).toMatchObject({ replacements: 1, nonce: 0 });
      const txs = await ctx.database.db
        .selectFrom('chain_payout_txs')
        .selectAll()
        .where('payout_id', '=', row?.id as string)
        .orderBy('signed_at')
        .execute();
      expect(txs).toHaveLength(2);
      expect(BigInt(txs[1]?.max_fee_per_gas ?? 0)).toBeGreaterThan(BigInt(txs[0]?.max_fee_per_gas ?? 0));
      await rpc('evm_mine');
    } finally {
      await rpc('evm_setAutomine', [true]);
    }
    expect(await settle(payout, 2)).toEqual([
      expect.objectContaining({ claimId: 'clm_stuck', status: 'SUCCEEDED' }),
    ]);
    expect(await balanceOf(chain, budget.token, user.address)).toBe(99n);
    const [row] = await payoutOf('clm_stuck');
    const txs = await ctx.database.db
      .selectFrom('chain_payout_txs')
      .select(['tx_hash', 'status'])
      .where('payout_id', '=', row?.id as string)
      .execute();
    expect(txs.map((t) => t.status).sort()).toEqual(['MINED', 'REPLACED']);
    expect(txs.find((t) => t.status === 'MINED')?.tx_hash).toBe(row?.mined_tx_hash);
  });
});

describe('the RPC endpoint down', () => {
  it('payouts wait (nothing signed, or signed and kept) and go through once it is back', async () => {
    const target = new URL(chain.rpcUrl);
    const sockets = new Set<Socket>();
    let proxy: Server | undefined;
    const up = (port: number) =>
      new Promise<number>((resolve) => {
        proxy = createServer((socket) => {
          sockets.add(socket);
          const remote = connect(Number(target.port), target.hostname);
          sockets.add(remote);
          socket.pipe(remote).pipe(socket);
          remote.on('error', () => socket.destroy());
          socket.on('error', () => remote.destroy());
        }).listen(port, '127.0.0.1', () => {
          const address = proxy?.address();
          resolve(typeof address === 'object' && address ? address.port : 0);
        });
      });
    const down = () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        sockets.clear();
        proxy?.close(() => resolve());
      });
    const port = await up(0);
    const network = await createNetwork(ctx.database.db, ctx.clock, {
      name: 'via proxy',
      chainId: chain.chainId,
      rpcUrl: `http://127.0.0.1:${port}`,
    });
    const budget = await chainBudget(ctx, chain, { decimals: 6, networkId: network.id });
    const user = await userWithWallet(ctx, chain.chainId);
    const payout = createChainPayout({
      db: ctx.database.db,
      clock: ctx.clock,
      kek: TEST_KEK,
      rebroadcastAfterMs: 15_000,
    });
    const claim = {
      claimId: 'clm_rpcdown',
      budgetId: budget.budgetId,
      accountId: user.accountId,
      amount: '77',
    };
    try {
      await down();
      // Down before signing: the claim waits on its network (no failure, no attempt), nothing is
      // signed, no nonce is used.
      expect(await payout.payClaims([claim])).toMatchObject({
        signed: [],
        failed: [],
        waitingForNetwork: ['clm_rpcdown'],
      });
      expect(await payoutOf('clm_rpcdown')).toEqual([]);
      await up(port);
      // Down between signing and broadcast: the signed transaction waits in the outbox.
      const held = createChainPayout({
        db: ctx.database.db,
        clock: ctx.clock,
        kek: TEST_KEK,
        rebroadcastAfterMs: 15_000,
        holdAt: async (step) => (step === 'signed' ? down() : undefined),
      });
      await held.payClaims([claim]);
      expect(await payoutOf('clm_rpcdown')).toEqual([
        expect.objectContaining({ status: 'SIGNED', last_error: expect.any(String) }),
      ]);
      expect(await payout.runCycle()).toEqual([]);
      await up(port);
      ctx.clock.advance(16_000);
      expect(await settle(payout, 2)).toEqual([
        expect.objectContaining({ claimId: 'clm_rpcdown', status: 'SUCCEEDED' }),
      ]);
      expect(await balanceOf(chain, budget.token, user.address)).toBe(77n);
    } finally {
      await down();
    }
  });
});
