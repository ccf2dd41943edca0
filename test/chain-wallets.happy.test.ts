// The chain payout's HTTP surface: operators register networks (checked against eth_chainId) and
// chain assets (decimals from the contract), create or import a budget's reward wallet and see its
// balances, debts and warnings, and reconcile; users bind a wallet by signing a SIWE challenge.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeFunctionData, erc20Abi } from 'viem';
import type { Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createChainPayout } from '../src/chain/outbox.ts';
import { resolveWalletKek } from '../src/chain/signer.ts';
import { createAccount, sessionCookie, setupMission, startTestApp } from './harness.ts';
import type { TestContext } from './harness.ts';
import { startTestChain } from './chain/chain-fixture.ts';

let ctx: TestContext;
let chain: Awaited<ReturnType<typeof startTestChain>>;
const IMPORTED_KEY = generatePrivateKey();

beforeAll(async () => {
  [ctx, chain] = await Promise.all([
    startTestApp({ captureLogs: true, env: { WALLET_KEK: 'cd'.repeat(32) } }),
    startTestChain(),
  ]);
});
afterAll(async () => {
  await ctx?.close();
  await chain?.cleanup();
});

const answers: string[] = [];
async function call(method: 'GET' | 'POST', url: string, body?: unknown) {
  const response = await ctx.admin(method, url, body);
  answers.push(response.body);
  return response;
}

let networkId: string;
let tokenBudgetId: string;
let token: Address;

describe('operators: networks, assets, wallets', () => {
  it('registers a network only when its RPC endpoint serves that chain id', async () => {
    const wrong = await call('POST', '/admin/v1/chain-networks', {
      name: 'wrong',
      chainId: 1001,
      rpcUrl: chain.rpcUrl,
    });
    expect(wrong.statusCode).toBe(422);
    expect(wrong.json()).toMatchObject({ code: 3601, name: 'CHAIN_ID_MISMATCH' });
    const down = await call('POST', '/admin/v1/chain-networks', {
      name: 'down',
      chainId: 1001,
      rpcUrl: 'http://127.0.0.1:9/',
    });
    expect(down.statusCode).toBe(503);
    expect(down.json()).toMatchObject({ code: 3602 });
    const ok = await call('POST', '/admin/v1/chain-networks', {
      name: 'dev',
      chainId: chain.chainId,
      rpcUrl: chain.rpcUrl,
      confirmations: 1,
      explorerTxUrl: 'https://explorer.example/tx/{hash}',
    });
    expect(ok.statusCode).toBe(201);
    networkId = ok.json<{ id: string }>().id;
    expect((await call('GET', '/admin/v1/chain-networks')).json()).toEqual({
      items: [expect.objectContaining({ id: networkId, chainId: chain.chainId })],
    });
  });

  it("reads a token's decimals from the contract; one without decimals() cannot back a budget (1402)", async () => {
    token = await chain.deployToken({ decimals: 6 });
    const asset = await call('POST', '/admin/v1/chain-assets', {
      networkId,
      symbol: 'USDT',
      name: 'Tether',
      tokenAddress: token,
    });
    expect(asset.statusCode).toBe(201);
    expect(asset.json()).toMatchObject({ decimals: 6, tokenAddress: token.toLowerCase() });
    const native = await call('POST', '/admin/v1/chain-assets', { networkId, symbol: 'KAIA', name: 'Kaia' });
    expect(native.json()).toMatchObject({ decimals: 18, tokenAddress: null });
    const bare = await call('POST', '/admin/v1/chain-assets', {
      networkId,
      symbol: 'BARE',
      name: 'No decimals',
      tokenAddress: await chain.deployTokenWithoutDecimals(),
    });
    expect(bare.json()).toMatchObject({ decimals: null });
    const refused = await call('POST', '/admin/v1/budgets', {
      type: 'FIXED',
      assetId: bare.json<{ id: string }>().id,
      name: 'b',
      total: '10',
    });
    expect(refused.json()).toMatchObject({ code: 1402, name: 'NOT_SET_REWARD_ASSET_DECIMALS' });
    const notContract = await call('POST', '/admin/v1/chain-assets', {
      networkId,
      symbol: 'X',
      name: 'x',
      tokenAddress: privateKeyToAccount(generatePrivateKey()).address,
    });
    expect(notContract.json()).toMatchObject({ code: 3607 });
    const budget = await call('POST', '/admin/v1/budgets', {
      type: 'FIXED',
      assetId: asset.json<{ id: string }>().id,
      name: 'USDT rewards',
      total: '1000',
    });
    tokenBudgetId = budget.json<{ id: string }>().id;
  });

  it('creates a reward wallet once per budget, shows balances and what it owes, warns when it cannot cover it', async () => {
    const created = await call('POST', `/admin/v1/budgets/${tokenBudgetId}/reward-wallet`, {});
    expect(created.statusCode).toBe(201);
    expect(Object.keys(created.json()).sort()).toEqual([
      'address',
      'budgetId',
      'createdAt',
      'id',
      'keyOrigin',
      'networkId',
    ]);
    expect((await call('POST', `/admin/v1/budgets/${tokenBudgetId}/reward-wallet`, {})).json()).toMatchObject(
      { code: 3604 },
    );
    const address = created.json<{ address: Address }>().address;
    // A claim of 12.5 USDT still to pay, and a wallet holding 10.
    const setup = await setupMission(ctx);
    const asset = await ctx.database.db
      .selectFrom('budgets')
      .select('asset_id')
      .where('id', '=', tokenBudgetId)
      .executeTakeFirstOrThrow();
    const now = ctx.clock.now();
    await ctx.database.db
      .insertInto('claims')
      .values({
        id: 'clm_owed',
        budget_id: tokenBudgetId,
        asset_id: asset.asset_id,
        partner_id: setup.partnerId,
        partner_uid: 'u1',
        account_id: null,
        promotion_id: null,
        source: 'MISSION',
        source_id: setup.missionId,
        period_key: 'x',
        amount: '12500000',
        status: 'REQUESTED',
        reason: null,
        attempts: 0,
        next_attempt_at: now,
        created_at: now,
        updated_at: now,
      })
      .execute();
    await chain.mintToken(token, address, 10_000_000n);
    await chain.setNativeBalance(address, 10n ** 18n);
    const view = await call('GET', `/admin/v1/budgets/${tokenBudgetId}/reward-wallet`);
    expect(view.json()).toMatchObject({
      address,
      tokenBalance: '10',
      owed: '12.5',
      gasBalanceWei: String(10n ** 18n),
      warning: expect.stringMatching(/cannot cover.*holds 10 USDT but owes 12.5/),
    });
    await chain.mintToken(token, address, 5_000_000n);
    expect((await call('GET', `/admin/v1/budgets/${tokenBudgetId}/reward-wallet`)).json()).toMatchObject({
      tokenBalance: '15',
      warning: null,
    });
  });

  it('imports a key, refuses a bad one, and never shows or logs it', async () => {
    const asset = await call('POST', '/admin/v1/chain-assets', { networkId, symbol: 'ETH', name: 'Native' });
    const budget = await call('POST', '/admin/v1/budgets', {
      type: 'FIXED',
      assetId: asset.json<{ id: string }>().id,
      name: 'native',
      total: '1',
    });
    const budgetId = budget.json<{ id: string }>().id;
    expect(
      (await call('POST', `/admin/v1/budgets/${budgetId}/reward-wallet`, { privateKey: '0x1234' })).json(),
    ).toMatchObject({ code: 3605 });
    const imported = await call('POST', `/admin/v1/budgets/${budgetId}/reward-wallet`, {
      privateKey: IMPORTED_KEY,
    });
    expect(imported.statusCode).toBe(201);
    expect(imported.json()).toMatchObject({
      address: privateKeyToAccount(IMPORTED_KEY).address,
      keyOrigin: 'IMPORTED',
    });
    await call('GET', `/admin/v1/budgets/${budgetId}/reward-wallet`);
    const secret = IMPORTED_KEY.slice(2).toLowerCase();
    expect(answers.join('\n').toLowerCase()).not.toContain(secret);
    expect(JSON.stringify(ctx.logs).toLowerCase()).not.toContain(secret);
    expect(ctx.logs.length).toBeGreaterThan(0);
    const stored = await ctx.database.db
      .selectFrom('reward_wallets')
      .select('encrypted_key')
      .where('budget_id', '=', budgetId)
      .executeTakeFirstOrThrow();
    expect(stored.encrypted_key.toLowerCase()).not.toContain(secret);
    expect(Buffer.from(stored.encrypted_key.split(':').at(-1) ?? '', 'base64').toString('hex')).not.toContain(
      secret,
    );
  });
});

describe('users bind a wallet by signing a SIWE challenge', () => {
  let accountId: string;
  let cookie: string;
  const first = privateKeyToAccount(generatePrivateKey());
  const second = privateKeyToAccount(generatePrivateKey());
  const user = (method: 'GET' | 'POST', url: string, body?: unknown) =>
    ctx.app.inject({
      method,
      url,
      // A cookie-authenticated write must come from our own pages (docs/security.md, Sessions).
      headers: { cookie, origin: ctx.config.publicBaseUrl },
      ...(body !== undefined && { payload: body as object }),
    });
  const challenge = async (address: Address) =>
    (await user('GET', `/v1/me/wallet/challenge?address=${address}`)).json<{ message: string }>().message;

  beforeAll(async () => {
    accountId = await createAccount(ctx);
    cookie = await sessionCookie(ctx, accountId);
  });

  it('needs a session', async () => {
    expect((await ctx.app.inject({ method: 'GET', url: '/v1/me/wallet' })).json()).toMatchObject({
      code: 3210,
    });
    expect((await user('GET', '/v1/me/wallet')).json()).toMatchObject({ code: 3612 });
  });

  it('binds with a valid signature; a used, foreign or wrongly signed challenge is refused', async () => {
    const message = await challenge(first.address);
    expect(message).toContain(first.address);
    const forged = await user('POST', '/v1/me/wallet', {
      message,
      signature: await second.signMessage({ message }),
    });
    expect(forged.json()).toMatchObject({ code: 3611, name: 'SIWE_SIGNATURE_INVALID' });
    const bound = await user('POST', '/v1/me/wallet', {
      message,
      signature: await first.signMessage({ message }),
    });
    expect(bound.statusCode).toBe(200);
    expect(bound.json()).toMatchObject({ address: first.address, chainId: chain.chainId });
    expect(
      (
        await user('POST', '/v1/me/wallet', { message, signature: await first.signMessage({ message }) })
      ).json(),
    ).toMatchObject({ code: 3610 });
    // Another account cannot use this account's challenge.
    const otherCookie = await sessionCookie(ctx, await createAccount(ctx));
    const fresh = await challenge(first.address);
    const stolen = await ctx.app.inject({
      method: 'POST',
      url: '/v1/me/wallet',
      headers: { cookie: otherCookie, origin: ctx.config.publicBaseUrl },
      payload: { message: fresh, signature: await first.signMessage({ message: fresh }) },
    });
    expect(stolen.json()).toMatchObject({ code: 3610 });
    ctx.clock.advance(11 * 60_000);
    expect(
      (
        await user('POST', '/v1/me/wallet', {
          message: fresh,
          signature: await first.signMessage({ message: fresh }),
        })
      ).json(),
    ).toMatchObject({ code: 3610, message: expect.stringMatching(/expired/) });
    expect((await user('GET', '/v1/me/wallet')).json()).toMatchObject({ address: first.address });
  });

  it('rebinds with history; a payout already signed still goes to the address it was signed for', async () => {
    const budgetId = tokenBudgetId;
    const kek = resolveWalletKek(ctx.config, () => {});
    const payout = createChainPayout({
      db: ctx.database.db,
      clock: ctx.clock,
      kek,
      holdAt: async (step) => {
        if (step !== 'signed') return;
        const message = await challenge(second.address);
        expect(
          (await user('POST', '/v1/me/wallet', { message, signature: await second.signMessage({ message }) }))
            .statusCode,
        ).toBe(200);
      },
    });
    await payout.payClaims([{ claimId: 'clm_rebind', budgetId, accountId, amount: '3000000' }]);
    for (let i = 0; i < 3; i++) await payout.runCycle();
    expect(await chain.tokenBalance(token, first.address)).toBe(3_000_000n);
    expect(await chain.tokenBalance(token, second.address)).toBe(0n);
    expect((await user('GET', '/v1/me/wallet')).json()).toMatchObject({ address: second.address });
    const history = await ctx.database.db
      .selectFrom('user_wallet_events')
      .select(['address', 'previous_address'])
      .where('account_id', '=', accountId)
      .orderBy('id')
      .execute();
    expect(history).toEqual([
      { address: first.address.toLowerCase(), previous_address: null },
      { address: second.address.toLowerCase(), previous_address: first.address.toLowerCase() },
    ]);
  });
});

describe('reconciliation', () => {
  it('finds nothing to report after outbox payouts, and reports a transfer the outbox did not make', async () => {
    const clean = await call('GET', '/admin/v1/reward-wallets/reconcile');
    const mine = clean
      .json<{ items: Array<{ budgetId: string; confirmedPayouts: number; differences: unknown[] }> }>()
      .items.find((w) => w.budgetId === tokenBudgetId);
    expect(mine).toMatchObject({ confirmedPayouts: 1, differences: [] });
    // Someone uses the wallet's key outside the service.
    const wallet = await ctx.database.db
      .selectFrom('reward_wallets')
      .select('address')
      .where('budget_id', '=', tokenBudgetId)
      .executeTakeFirstOrThrow();
    const rpc = (method: string, params: unknown[]) =>
      chain.client.request({ method: method as never, params: params as never });
    await rpc('hardhat_impersonateAccount', [wallet.address]);
    const stranger = privateKeyToAccount(generatePrivateKey()).address;
    await rpc('eth_sendTransaction', [
      {
        from: wallet.address,
        to: token,
        data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [stranger, 5n] }),
      },
    ]);
    const dirty = await call('GET', '/admin/v1/reward-wallets/reconcile');
    const report = dirty
      .json<{ items: Array<{ budgetId: string; differences: Array<{ kind: string }> }> }>()
      .items.find((w) => w.budgetId === tokenBudgetId);
    expect(report?.differences.map((d) => d.kind).sort()).toEqual(['EXTRA_TRANSACTIONS', 'NOT_IN_OUTBOX']);
  });
});
