// Chain test setup: a dev chain per test file, a network and chain assets registered through the
// service, budgets through the admin API, funded reward wallets, and users with bound wallets.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startDevChain } from '../../src/chain/dev-chain.ts';
import type { DevChain } from '../../src/chain/dev-chain.ts';
import { createChainAsset, createNetwork, createRewardWallet } from '../../src/chain/service.ts';
import { createAccount } from '../harness.ts';
import type { TestContext } from '../harness.ts';

/** The artifact cache survives between test files (one compile per machine, as in the data dir). */
export const CHAIN_CACHE_DIR = path.join(tmpdir(), 'mrs-chain-test-cache');

export const TEST_KEK = randomBytes(32);

export async function startTestChain(
  options: { blockIntervalMs?: number; hardfork?: 'london' | 'shanghai' | 'cancun' } = {},
): Promise<DevChain & { cleanup(): Promise<void> }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'mrs-chain-'));
  // A loaded CI machine (two test files and their databases on two cores) can take a while to start it.
  const chain = await startDevChain({ dataDir: CHAIN_CACHE_DIR, startTimeoutMs: 50_000, ...options });
  return {
    ...chain,
    async cleanup() {
      await chain.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface ChainBudget {
  networkId: string;
  assetId: string;
  budgetId: string;
  walletId: string;
  walletAddress: Address;
  token: Address | null;
}

/** A network for the chain (once per context), an asset, a FIXED budget and its reward wallet. */
export async function chainBudget(
  ctx: TestContext,
  chain: DevChain,
  options: {
    decimals?: number;
    native?: boolean;
    total?: string;
    networkId?: string;
    fundTokens?: bigint;
    fundGasWei?: bigint;
    confirmations?: number;
  },
): Promise<ChainBudget> {
  const networkId =
    options.networkId ??
    (
      await createNetwork(ctx.database.db, ctx.clock, {
        name: 'dev',
        chainId: chain.chainId,
        rpcUrl: chain.rpcUrl,
        confirmations: options.confirmations ?? 1,
      })
    ).id;
  const token = options.native ? null : await chain.deployToken({ decimals: options.decimals ?? 18 });
  const asset = await createChainAsset(ctx.database.db, ctx.clock, {
    networkId,
    symbol: options.native ? 'ETH' : 'TST',
    name: 'Test asset',
    tokenAddress: token,
  });
  const budget = await ctx.admin('POST', '/admin/v1/budgets', {
    type: 'FIXED',
    assetId: asset.id,
    name: 'Chain budget',
    total: options.total ?? '1000000',
  });
  if (budget.statusCode !== 201) throw new Error(`budget: ${budget.body}`);
  const budgetId = budget.json<{ id: string }>().id;
  const wallet = await createRewardWallet(ctx.database.db, ctx.clock, TEST_KEK, { budgetId });
  const walletAddress = wallet.address as Address;
  await chain.setNativeBalance(walletAddress, options.fundGasWei ?? 10n ** 21n);
  if (token && (options.fundTokens ?? 10n ** 30n) > 0n)
    await chain.mintToken(token, walletAddress, options.fundTokens ?? 10n ** 30n);
  return { networkId, assetId: asset.id, budgetId, walletId: wallet.id, walletAddress, token };
}

/** A platform account with a wallet bound to it (directly; the SIWE binding has its own tests). */
export async function userWithWallet(
  ctx: TestContext,
  chainId: number,
): Promise<{ accountId: string; address: Address }> {
  const accountId = await createAccount(ctx);
  const address = privateKeyToAccount(generatePrivateKey()).address;
  await ctx.database.db
    .insertInto('user_wallets')
    .values({
      account_id: accountId,
      address: address.toLowerCase(),
      chain_id: chainId,
      bound_at: ctx.clock.now(),
    })
    .execute();
  return { accountId, address };
}

export async function balanceOf(chain: DevChain, token: Address | null, owner: Address): Promise<bigint> {
  return token ? chain.tokenBalance(token, owner) : chain.client.getBalance({ address: owner });
}
