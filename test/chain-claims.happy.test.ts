// Claims of a chain asset are paid by the chain outbox, not the ledger: a completion becomes a
// token transfer to the user's bound wallet, the claim SUCCEEDED only with the network's
// confirmations; a user without a wallet waits uncounted; a revert fails the claim with the
// chain's reason and the bounded retry pays it with a new nonce.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeAbiParameters, keccak256 } from 'viem';
import type { Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createClaimChainPayout } from '../src/chain/claim-payout.ts';
import type { ClaimChainPayout } from '../src/chain/claim-payout.ts';
import { runPayoutBatch } from '../src/payout/worker.ts';
import { createAccount, partnerCall, sessionCookie, setupMission, startTestApp } from './harness.ts';
import type { TestContext } from './harness.ts';
import { balanceOf, chainBudget, startTestChain, TEST_KEK } from './chain/chain-fixture.ts';
import type { ChainBudget } from './chain/chain-fixture.ts';

let ctx: TestContext;
let chain: Awaited<ReturnType<typeof startTestChain>>;

beforeAll(async () => {
  [ctx, chain] = await Promise.all([startTestApp(), startTestChain()]);
});
afterAll(async () => {
  await ctx?.close();
  await chain?.cleanup();
});

/** A mission paying `amount` (whole units) from the chain budget, and a linked user who completes it. */
async function completedClaim(budget: ChainBudget, amount: string, partnerUid = 'chain-user') {
  const setup = await setupMission(ctx);
  const rule = await ctx.admin('PUT', `/admin/v1/missions/${setup.missionId}/reward`, {
    type: 'FIXED',
    budgetId: budget.budgetId,
    amount,
  });
  expect(rule.statusCode).toBe(200);
  const accountId = await createAccount(ctx, { link: { partnerId: setup.partnerId, partnerUid } });
  const achieved = await partnerCall(ctx, setup, {
    method: 'POST',
    url: '/v1/achieve',
    body: { partnerUid, missionKey: setup.missionKey, completed: true },
  });
  expect(achieved.statusCode).toBe(200);
  const claim = await ctx.database.db
    .selectFrom('claims')
    .selectAll()
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  expect(claim.status).toBe('REQUESTED');
  return { accountId, claimId: claim.id };
}

async function bindWallet(accountId: string): Promise<Address> {
  const address = privateKeyToAccount(generatePrivateKey()).address;
  await ctx.database.db
    .insertInto('user_wallets')
    .values({
      account_id: accountId,
      address: address.toLowerCase(),
      chain_id: chain.chainId,
      bound_at: ctx.clock.now(),
    })
    .onConflict((oc) => oc.column('account_id').doUpdateSet({ address: address.toLowerCase() }))
    .execute();
  return address;
}

const claimOf = (id: string) =>
  ctx.database.db.selectFrom('claims').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const historyOf = async (id: string) =>
  (
    await ctx.database.db
      .selectFrom('claim_events')
      .selectAll()
      .where('claim_id', '=', id)
      .orderBy('id')
      .execute()
  ).map((e) => [e.from_status, e.to_status, e.reason]);
const payoutsOf = (claimId: string) =>
  ctx.database.db
    .selectFrom('chain_payouts')
    .selectAll()
    .where('claim_id', '=', claimId)
    .orderBy('signed_at')
    .orderBy('nonce')
    .execute();

async function runUntil(payout: ClaimChainPayout, claimId: string, status: string, rounds = 30) {
  for (let i = 0; i < rounds && (await claimOf(claimId)).status !== status; i++) await payout.run();
  return claimOf(claimId);
}

describe('claims of a chain asset', () => {
  it('are paid on chain, not by the ledger: the user gains exactly the amount, the claim SUCCEEDED', async () => {
    const network = await ctx.admin('POST', '/admin/v1/chain-networks', {
      name: 'dev with explorer',
      chainId: chain.chainId,
      rpcUrl: chain.rpcUrl,
      explorerTxUrl: 'https://explorer.test/tx/{hash}',
    });
    expect(network.statusCode).toBe(201);
    const budget = await chainBudget(ctx, chain, {
      decimals: 6,
      networkId: network.json<{ id: string }>().id,
    });
    const { accountId, claimId } = await completedClaim(budget, '1.5');
    const address = await bindWallet(accountId);
    // The ledger batch leaves it alone.
    expect(await runPayoutBatch(ctx.database.db, ctx.clock)).toBe(0);
    expect((await claimOf(claimId)).status).toBe('REQUESTED');

    const payout = createClaimChainPayout({ db: ctx.database.db, clock: ctx.clock, kek: TEST_KEK });
    expect((await runUntil(payout, claimId, 'SUCCEEDED')).status).toBe('SUCCEEDED');
    expect(await balanceOf(chain, budget.token, address)).toBe(1_500_000n);
    expect(await historyOf(claimId)).toEqual([
      [null, 'RESERVED', null],
      ['RESERVED', 'REQUESTED', 'user is linked'],
      ['REQUESTED', 'SUCCEEDED', 'chain'],
    ]);
    const transfers = await ctx.database.db
      .selectFrom('ledger_transfers')
      .select('id')
      .where('claim_id', '=', claimId)
      .execute();
    expect(transfers).toEqual([]);
    // Further rounds pay nothing twice.
    for (let i = 0; i < 3; i++) await payout.run();
    expect(await balanceOf(chain, budget.token, address)).toBe(1_500_000n);
    const [paid] = await payoutsOf(claimId);
    expect(await payoutsOf(claimId)).toHaveLength(1);

    // The claim shows its transaction, linked to the explorer, to the operator and to the user.
    const txHash = paid?.mined_tx_hash as string;
    expect(txHash).toMatch(/^0x[0-9a-f]{64}$/);
    const shown = { txHash, explorerUrl: `https://explorer.test/tx/${txHash}` };
    const listed = await ctx.admin('GET', `/admin/v1/claims?budgetId=${budget.budgetId}`);
    expect(listed.json<{ items: unknown[] }>().items).toEqual([
      expect.objectContaining({ id: claimId, status: 'SUCCEEDED', ...shown }),
    ]);
    const mine = await ctx.app.inject({
      method: 'GET',
      url: '/v1/me/claims',
      headers: { cookie: await sessionCookie(ctx, accountId) },
    });
    expect(mine.statusCode).toBe(200);
    expect(mine.json<{ items: unknown[] }>().items).toEqual([
      expect.objectContaining({ id: claimId, amount: '1.5', ...shown }),
    ]);
  });

  it('a user without a bound wallet waits (not attempted, not failed) and is paid once a wallet is bound', async () => {
    const budget = await chainBudget(ctx, chain, { decimals: 18 });
    const { accountId, claimId } = await completedClaim(budget, '2', 'waiting-user');
    const payout = createClaimChainPayout({ db: ctx.database.db, clock: ctx.clock, kek: TEST_KEK });
    for (let i = 0; i < 3; i++) await payout.run();
    expect(await claimOf(claimId)).toMatchObject({ status: 'REQUESTED', attempts: 0, reason: null });
    expect(await payoutsOf(claimId)).toEqual([]);

    const address = await bindWallet(accountId);
    expect((await runUntil(payout, claimId, 'SUCCEEDED')).attempts).toBe(0);
    expect(await balanceOf(chain, budget.token, address)).toBe(2n * 10n ** 18n);
  });

  it('is SUCCEEDED only with the network confirmations', async () => {
    const budget = await chainBudget(ctx, chain, { decimals: 6, confirmations: 3 });
    const { accountId, claimId } = await completedClaim(budget, '1', 'patient-user');
    const address = await bindWallet(accountId);
    const payout = createClaimChainPayout({ db: ctx.database.db, clock: ctx.clock, kek: TEST_KEK });
    for (let i = 0; i < 3; i++) await payout.run();
    // Mined (automine) but with one confirmation of three.
    expect(await balanceOf(chain, budget.token, address)).toBe(1_000_000n);
    expect((await claimOf(claimId)).status).toBe('REQUESTED');
    await chain.client.request({ method: 'evm_mine' as never, params: [] as never });
    await payout.run();
    expect((await claimOf(claimId)).status).toBe('REQUESTED');
    await chain.client.request({ method: 'evm_mine' as never, params: [] as never });
    expect((await runUntil(payout, claimId, 'SUCCEEDED', 3)).status).toBe('SUCCEEDED');
  });

  it('a revert fails the claim with the chain reason; the bounded retry pays it with a new nonce', async () => {
    const budget = await chainBudget(ctx, chain, { decimals: 6, fundTokens: 5_000_000n });
    const { accountId, claimId } = await completedClaim(budget, '5', 'revert-user');
    const address = await bindWallet(accountId);
    // Between signing and broadcast the wallet's tokens vanish (OpenZeppelin 5 keeps balances at slot 0).
    const slot = keccak256(
      encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [budget.walletAddress, 0n]),
    );
    let drained = false;
    const payout = createClaimChainPayout({
      db: ctx.database.db,
      clock: ctx.clock,
      kek: TEST_KEK,
      holdAt: async (step) => {
        if (step !== 'signed' || drained) return;
        drained = true;
        await chain.client.request({
          method: 'hardhat_setStorageAt' as never,
          params: [budget.token, slot, `0x${'0'.repeat(64)}`] as never,
        });
      },
    });
    const failed = await runUntil(payout, claimId, 'FAILED');
    expect(failed).toMatchObject({ status: 'FAILED', attempts: 1 });
    expect(failed.reason).toMatch(/ERC20InsufficientBalance/);
    // Nothing more happens before the backoff has passed.
    await payout.run();
    await runPayoutBatch(ctx.database.db, ctx.clock);
    expect((await claimOf(claimId)).status).toBe('FAILED');

    await chain.mintToken(budget.token as Address, budget.walletAddress, 5_000_000n);
    ctx.clock.advance(60_000);
    await runPayoutBatch(ctx.database.db, ctx.clock); // requeues FAILED claims past their backoff
    expect((await runUntil(payout, claimId, 'SUCCEEDED')).attempts).toBe(1);
    expect((await payoutsOf(claimId)).map((p) => [p.status, Number(p.nonce)])).toEqual([
      ['REVERTED', 0],
      ['CONFIRMED', 1],
    ]);
    expect(await balanceOf(chain, budget.token, address)).toBe(5_000_000n);
    expect((await historyOf(claimId)).map(([from, to]) => `${from}->${to}`)).toEqual([
      'null->RESERVED',
      'RESERVED->REQUESTED',
      'REQUESTED->FAILED',
      'FAILED->REQUESTED',
      'REQUESTED->SUCCEEDED',
    ]);
  });

  it('a payout signed before the user rebinds goes to the address it was signed for', async () => {
    const budget = await chainBudget(ctx, chain, { decimals: 6 });
    const { accountId, claimId } = await completedClaim(budget, '3', 'rebinding-user');
    const first = await bindWallet(accountId);
    let second: Address | undefined;
    const payout = createClaimChainPayout({
      db: ctx.database.db,
      clock: ctx.clock,
      kek: TEST_KEK,
      holdAt: async (step) => {
        if (step === 'signed' && !second) second = await bindWallet(accountId);
      },
    });
    await runUntil(payout, claimId, 'SUCCEEDED');
    expect(second).toBeDefined();
    expect(await balanceOf(chain, budget.token, first)).toBe(3_000_000n);
    expect(await balanceOf(chain, budget.token, second as Address)).toBe(0n);
  });
});

describe('a reorg deeper than the confirmations (issue #30 item 4)', () => {
  it('re-opens the claims whose transfer is gone (SUCCEEDED -> REQUESTED), and recover makes them SUCCEEDED again, paid once', async () => {
    const rpc = (method: string, params: unknown[] = []) =>
      chain.client.request({ method: method as never, params: params as never });
    const budget = await chainBudget(ctx, chain, { decimals: 6 });
    const a = await completedClaim(budget, '2', 'reorg-a');
    const addressA = await bindWallet(a.accountId);
    const payout = createClaimChainPayout({ db: ctx.database.db, clock: ctx.clock, kek: TEST_KEK });
    const snapshot = await rpc('evm_snapshot');
    expect((await runUntil(payout, a.claimId, 'SUCCEEDED')).status).toBe('SUCCEEDED');
    expect(await balanceOf(chain, budget.token, addressA)).toBe(2_000_000n);

    // The chain loses the confirmed transfer; the next claim of the wallet finds the nonce behind.
    await rpc('evm_revert', [snapshot]);
    expect(await balanceOf(chain, budget.token, addressA)).toBe(0n);
    const b = await completedClaim(budget, '3', 'reorg-b');
    const addressB = await bindWallet(b.accountId);
    for (let i = 0; i < 3; i++) await payout.run();
    const wallet = await ctx.database.db
      .selectFrom('reward_wallets')
      .select(['halted_at'])
      .where('id', '=', budget.walletId)
      .executeTakeFirstOrThrow();
    expect(wallet.halted_at).not.toBeNull();
    // The claim no longer says SUCCEEDED: its transfer is not on chain.
    const reopened = await claimOf(a.claimId);
    expect(reopened.status).toBe('REQUESTED');
    expect(reopened.attempts).toBe(0);
    expect((await historyOf(a.claimId)).slice(-2)).toEqual([
      ['REQUESTED', 'SUCCEEDED', 'chain'],
      ['SUCCEEDED', 'REQUESTED', expect.stringMatching(/reorg deeper than the confirmations/)],
    ]);
    expect(await payoutsOf(a.claimId)).toEqual([
      expect.objectContaining({ status: 'BROADCAST', mined_tx_hash: null, nonce: 0 }),
    ]);
    expect((await claimOf(b.claimId)).status).toBe('REQUESTED');
    expect(await payoutsOf(b.claimId)).toEqual([]);
    // While halted, nothing is sent and nothing says SUCCEEDED.
    for (let i = 0; i < 3; i++) await payout.run();
    expect(await balanceOf(chain, budget.token, addressA)).toBe(0n);
    expect((await claimOf(a.claimId)).status).toBe('REQUESTED');

    const recovered = await ctx.admin('POST', `/admin/v1/reward-wallets/${budget.walletId}/recover`);
    expect(recovered.statusCode).toBe(200);
    expect(recovered.json()).toMatchObject({
      chainNonce: 0,
      resent: [expect.objectContaining({ claimId: a.claimId, nonce: 0 })],
    });
    expect((await runUntil(payout, a.claimId, 'SUCCEEDED')).status).toBe('SUCCEEDED');
    expect((await runUntil(payout, b.claimId, 'SUCCEEDED')).status).toBe('SUCCEEDED');
    for (let i = 0; i < 3; i++) await payout.run();
    // Paid once each: the same signed transaction (nonce 0) for A, the next nonce for B.
    expect(await balanceOf(chain, budget.token, addressA)).toBe(2_000_000n);
    expect(await balanceOf(chain, budget.token, addressB)).toBe(3_000_000n);
    expect((await payoutsOf(a.claimId)).map((p) => [p.status, Number(p.nonce)])).toEqual([['CONFIRMED', 0]]);
    expect((await payoutsOf(b.claimId)).map((p) => [p.status, Number(p.nonce)])).toEqual([['CONFIRMED', 1]]);
    expect((await historyOf(a.claimId)).slice(-1)).toEqual([['REQUESTED', 'SUCCEEDED', 'chain']]);
  });
});
