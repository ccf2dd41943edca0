// An operator steers networks (issue #30 item 5, #28 finding 5): OWNER only; several RPC URLs tried
// in order; disable / enable; remove one nothing uses; non-public RPC addresses refused in production
// unless listed; a wallet halted by a deep reorg recovered without paying twice; the payouts list.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address } from 'viem';
import { createChainPayout } from '../src/chain/outbox.ts';
import { checkRpcUrl } from '../src/chain/rpc-urls.ts';
import { rpcClient, rpcClientCount, RPC_CLIENT_CACHE_SIZE } from '../src/chain/rpc.ts';
import { startTestApp } from './harness.ts';
import type { TestContext } from './harness.ts';
import { balanceOf, chainBudget, startTestChain, TEST_KEK, userWithWallet } from './chain/chain-fixture.ts';
import { freePort } from './free-port.ts';

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

describe('steering a network', () => {
  it('is OWNER only; rpcUrls are tried in order (a dead first URL falls back); disable stops its payouts', async () => {
    const created = await ctx.admin('POST', '/admin/v1/chain-networks', {
      name: 'steered',
      chainId: chain.chainId,
      rpcUrl: chain.rpcUrl,
    });
    expect(created.statusCode).toBe(201);
    const id = created.json<{ id: string }>().id;
    const { secret } = (
      await ctx.admin('POST', '/admin/v1/admin-credentials', { name: 'op', role: 'OPERATOR' })
    ).json<{ secret: string }>();
    const denied = await ctx.admin('PATCH', `/admin/v1/chain-networks/${id}`, { enabled: false }, secret);
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toMatchObject({ code: expect.any(Number), name: expect.any(String) });
    // A dead URL first, the live one second: saved (the dead one cannot be checked... so refused).
    const dead = `http://127.0.0.1:${await freePort()}`;
    const refused = await ctx.admin('PATCH', `/admin/v1/chain-networks/${id}`, {
      rpcUrls: [dead, chain.rpcUrl],
    });
    expect(refused.statusCode).toBe(503);
    expect(refused.json()).toMatchObject({ name: 'CHAIN_RPC_UNAVAILABLE' });
    expect(refused.json<{ message: string }>().message).toMatch(/ECONNREFUSED/);
    const two = await ctx.admin('PATCH', `/admin/v1/chain-networks/${id}`, {
      rpcUrls: [chain.rpcUrl, `${chain.rpcUrl}/`],
      confirmations: 2,
    });
    expect(two.statusCode).toBe(200);
    expect(two.json()).toMatchObject({
      rpcUrl: chain.rpcUrl,
      rpcUrls: [chain.rpcUrl, `${chain.rpcUrl}/`],
      confirmations: 2,
      enabled: true,
    });
    // The client of a network whose first URL died answers through the next one.
    const client = rpcClient({ chain_id: chain.chainId, rpc_url: dead, fallback_rpc_urls: [chain.rpcUrl] });
    expect(await client.getChainId()).toBe(chain.chainId);

    const budget = await chainBudget(ctx, chain, { decimals: 6, networkId: id });
    const user = await userWithWallet(ctx, chain.chainId);
    const off = await ctx.admin('PATCH', `/admin/v1/chain-networks/${id}`, { enabled: false });
    expect(off.json()).toMatchObject({ enabled: false });
    const payout = createChainPayout({ db: ctx.database.db, clock: ctx.clock, kek: TEST_KEK });
    ctx.clock.advance(10_000);
    const claim = {
      claimId: 'clm_disabled',
      budgetId: budget.budgetId,
      accountId: user.accountId,
      amount: '9',
    };
    expect(await payout.payClaims([claim])).toMatchObject({
      signed: [],
      waitingForNetwork: ['clm_disabled'],
    });
    await ctx.admin('PATCH', `/admin/v1/chain-networks/${id}`, { enabled: true });
    ctx.clock.advance(10_000);
    expect((await payout.payClaims([claim])).signed).toEqual(['clm_disabled']);
    // In use: it cannot be removed (disable it instead); an unused one can.
    const inUse = await ctx.admin('DELETE', `/admin/v1/chain-networks/${id}`);
    expect(inUse.statusCode).toBe(409);
    expect(inUse.json()).toMatchObject({ code: 3624, name: 'CHAIN_NETWORK_IN_USE' });
    const unused = await ctx.admin('POST', '/admin/v1/chain-networks', {
      name: 'unused',
      chainId: chain.chainId,
      rpcUrl: chain.rpcUrl,
    });
    expect(
      (await ctx.admin('DELETE', `/admin/v1/chain-networks/${unused.json<{ id: string }>().id}`)).statusCode,
    ).toBe(204);
    // The change is audited.
    const audit = await ctx.admin('GET', '/admin/v1/audit-events?limit=100');
    expect(audit.body).toContain(id);
  });

  it('RPC URLs: loopback, private and metadata addresses refused unless allowed; the client cache is bounded', async () => {
    const production: string[] = [];
    await expect(checkRpcUrl('rpcUrl', 'http://169.254.169.254/latest', production)).rejects.toMatchObject({
      errorName: 'CHAIN_RPC_URL_REFUSED',
    });
    await expect(checkRpcUrl('rpcUrl', 'http://127.0.0.1:5432/', production)).rejects.toMatchObject({
      errorName: 'CHAIN_RPC_URL_REFUSED',
    });
    await expect(checkRpcUrl('rpcUrl', 'http://[::1]:8545/', production)).rejects.toMatchObject({
      errorName: 'CHAIN_RPC_URL_REFUSED',
    });
    await expect(checkRpcUrl('rpcUrl', 'http://10.0.0.5:8545/', production)).rejects.toMatchObject({
      errorName: 'CHAIN_RPC_URL_REFUSED',
    });
    await expect(checkRpcUrl('rpcUrl', 'http://user:pw@8.8.8.8/', undefined)).rejects.toMatchObject({
      errorName: 'CHAIN_RPC_URL_REFUSED',
    });
    await expect(checkRpcUrl('rpcUrl', 'http://10.0.0.5:8545/', ['10.0.0.5'])).resolves.toBeUndefined();
    await expect(checkRpcUrl('rpcUrl', 'https://8.8.8.8/', production)).resolves.toBeUndefined();
    for (let i = 0; i < RPC_CLIENT_CACHE_SIZE + 10; i++)
      rpcClient({ chain_id: 1, rpc_url: `http://127.0.0.1:1/${i}` });
    expect(rpcClientCount()).toBe(RPC_CLIENT_CACHE_SIZE);
  });

  it('with the production rule (CHAIN_RPC_ALLOWED_HOSTS set) a loopback RPC URL is refused by the API, never contacted', async () => {
    const prod = await startTestApp({ env: { CHAIN_RPC_ALLOWED_HOSTS: 'rpc.internal.example' } });
    try {
      const answer = await prod.admin('POST', '/admin/v1/chain-networks', {
        name: 'ssrf',
        chainId: chain.chainId,
        rpcUrl: chain.rpcUrl,
      });
      expect(answer.statusCode).toBe(400);
      expect(answer.json()).toMatchObject({ code: 3622, name: 'CHAIN_RPC_URL_REFUSED' });
    } finally {
      await prod.close();
    }
  });
});

describe('recovering a wallet after a reorg deeper than the confirmations', () => {
  it('re-sends the lost CONFIRMED payouts as the same signed transactions: each user holds exactly its amount', async () => {
    const budget = await chainBudget(ctx, chain, { decimals: 6 });
    const [a, b] = await Promise.all([
      userWithWallet(ctx, chain.chainId),
      userWithWallet(ctx, chain.chainId),
    ]);
    const payout = createChainPayout({ db: ctx.database.db, clock: ctx.clock, kek: TEST_KEK });
    const snapshot = await rpc('evm_snapshot');
    await payout.payClaims([
      { claimId: 'clm_rec_a', budgetId: budget.budgetId, accountId: a?.accountId as string, amount: '31' },
    ]);
    ctx.clock.advance(2_000);
    expect((await payout.runCycle()).filter((o) => o.claimId === 'clm_rec_a')).toHaveLength(1);
    await rpc('evm_revert', [snapshot]);
    expect(await balanceOf(chain, budget.token, a?.address as Address)).toBe(0n);
    const claimB = {
      claimId: 'clm_rec_b',
      budgetId: budget.budgetId,
      accountId: b?.accountId as string,
      amount: '32',
    };
    expect((await payout.payClaims([claimB])).waitingForNetwork).toEqual(['clm_rec_b']);
    const list = await ctx.admin('GET', `/admin/v1/chain-payouts?budgetId=${budget.budgetId}`);
    expect(list.json()).toMatchObject({
      items: [expect.objectContaining({ claimId: 'clm_rec_a', status: 'BROADCAST', nonce: 0 })],
    });
    const recovered = await ctx.admin('POST', `/admin/v1/reward-wallets/${budget.walletId}/recover`);
    expect(recovered.statusCode).toBe(200);
    expect(recovered.json()).toMatchObject({
      chainNonce: 0,
      resent: [expect.objectContaining({ claimId: 'clm_rec_a', nonce: 0 })],
    });
    // Recovering again: nothing is halted any more.
    expect(
      (await ctx.admin('POST', `/admin/v1/reward-wallets/${budget.walletId}/recover`)).json(),
    ).toMatchObject({ code: 3623 });
    expect((await payout.payClaims([claimB])).signed).toEqual(['clm_rec_b']);
    for (let i = 0; i < 3; i++) {
      ctx.clock.advance(20_000);
      await payout.runCycle();
    }
    expect(await balanceOf(chain, budget.token, a?.address as Address)).toBe(31n);
    expect(await balanceOf(chain, budget.token, b?.address as Address)).toBe(32n);
    const rows = await ctx.database.db
      .selectFrom('chain_payouts')
      .select(['claim_id', 'status', 'nonce'])
      .where('wallet_id', '=', budget.walletId)
      .orderBy('nonce')
      .execute();
    expect(rows.map((r) => [r.claim_id, r.status, Number(r.nonce)])).toEqual([
      ['clm_rec_a', 'CONFIRMED', 0],
      ['clm_rec_b', 'CONFIRMED', 1],
    ]);
    const page = (
      await ctx.admin('GET', `/admin/v1/chain-payouts?status=CONFIRMED&budgetId=${budget.budgetId}&limit=1`)
    ).json<{ items: unknown[]; nextCursor: string }>();
    expect(page.items).toHaveLength(1);
    const next = (
      await ctx.admin(
        'GET',
        `/admin/v1/chain-payouts?status=CONFIRMED&budgetId=${budget.budgetId}&limit=1&cursor=${page.nextCursor}`,
      )
    ).json<{ items: unknown[]; nextCursor: string | null }>();
    expect(next).toMatchObject({
      items: [expect.objectContaining({ claimId: 'clm_rec_a' })],
      nextCursor: null,
    });
  });
});
