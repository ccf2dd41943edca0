// The reward-asset views say which chain an asset is paid on (issue #29, "the reward asset form says
// which assets are on a chain"): its network, chain id, token contract (null for the native coin) and
// the token's explorer page, read from chain_assets and chain_networks; null for a ledger-only asset.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './harness.ts';
import type { TestContext } from './harness.ts';
import { startTestChain } from './chain/chain-fixture.ts';

let ctx: TestContext;
let chain: Awaited<ReturnType<typeof startTestChain>>;

beforeAll(async () => {
  [ctx, chain] = await Promise.all([startTestApp(), startTestChain()]);
});
afterAll(async () => {
  await ctx?.close();
  await chain?.cleanup();
});

interface AssetBody {
  id: string;
  symbol: string;
  decimals: number | null;
  chain: {
    networkId: string;
    networkName: string;
    chainId: number;
    tokenAddress: string | null;
    explorerUrl: string | null;
  } | null;
}

describe('reward assets on a chain', () => {
  it('list, get and update carry the chain facts; a ledger asset has chain null', async () => {
    const network = await ctx.admin('POST', '/admin/v1/chain-networks', {
      name: 'Kaia Kairos (dev)',
      chainId: chain.chainId,
      rpcUrl: chain.rpcUrl,
      explorerTxUrl: 'https://kairos.kaiascan.io/tx/{hash}',
    });
    expect(network.statusCode).toBe(201);
    const networkId = network.json<{ id: string }>().id;
    const token = await chain.deployToken({ decimals: 18, symbol: 'KST' });
    const tokenAsset = await ctx.admin('POST', '/admin/v1/chain-assets', {
      networkId,
      symbol: 'KST',
      name: 'Kaia test token',
      tokenAddress: token,
    });
    expect(tokenAsset.statusCode).toBe(201);
    const native = await ctx.admin('POST', '/admin/v1/chain-assets', {
      networkId,
      symbol: 'KAIA',
      name: 'Kaia',
    });
    expect(native.statusCode).toBe(201);
    const ledger = await ctx.admin('POST', '/admin/v1/reward-assets', {
      symbol: 'PNT',
      name: 'Points',
      decimals: 2,
    });
    expect(ledger.statusCode).toBe(201);
    expect(ledger.json()).toMatchObject({ symbol: 'PNT', chain: null });

    const address = token.toLowerCase();
    expect(address).toMatch(/^0x[0-9a-f]{40}$/);
    const onChain = {
      networkId,
      networkName: 'Kaia Kairos (dev)',
      chainId: chain.chainId,
      tokenAddress: address,
      explorerUrl: `https://kairos.kaiascan.io/token/${address}`,
    };
    const list = await ctx.admin('GET', '/admin/v1/reward-assets');
    expect(list.statusCode).toBe(200);
    const items = list.json<{ items: AssetBody[] }>().items;
    const bySymbol = Object.fromEntries(items.map((a) => [a.symbol, a]));
    expect(bySymbol.KST).toMatchObject({ decimals: 18, chain: onChain });
    expect(bySymbol.KAIA).toMatchObject({
      decimals: 18,
      chain: { networkId, chainId: chain.chainId, tokenAddress: null, explorerUrl: null },
    });
    expect(bySymbol.PNT).toMatchObject({ decimals: 2, chain: null });
    // One row per asset: the joins add none.
    expect(items).toHaveLength(3);

    const one = await ctx.admin('GET', `/admin/v1/reward-assets/${tokenAsset.json<{ id: string }>().id}`);
    expect(one.statusCode).toBe(200);
    expect(one.json()).toMatchObject({ symbol: 'KST', chain: onChain });
    const renamed = await ctx.admin(
      'PATCH',
      `/admin/v1/reward-assets/${tokenAsset.json<{ id: string }>().id}`,
      {
        name: 'Kaia token',
      },
    );
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json()).toMatchObject({ name: 'Kaia token', chain: onChain });

    // A network without an explorer link (or one not of the /tx/{hash} form): no explorer page.
    const noExplorer = await ctx.admin('PATCH', `/admin/v1/chain-networks/${networkId}`, {
      explorerTxUrl: 'https://explorer.example/?tx={hash}',
    });
    expect(noExplorer.statusCode).toBe(200);
    const again = await ctx.admin('GET', `/admin/v1/reward-assets/${tokenAsset.json<{ id: string }>().id}`);
    expect(again.json()).toMatchObject({ chain: { ...onChain, explorerUrl: null } });
  });

  it('an unknown asset is still a 404 with its code', async () => {
    const missing = await ctx.admin('GET', '/admin/v1/reward-assets/ast_missing');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ code: expect.any(Number), name: 'NOT_FOUND_REWARD_ASSET' });
  });
});
