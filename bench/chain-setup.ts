// The chain payout's arrangement shared by the chain bench and the two-worker test: a token on a dev
// chain registered as a network and chain asset, a budget paying it from a funded reward wallet, and
// accounts with bound wallets to pay.
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { DevChain } from '../src/chain/dev-chain.ts';
import { createChainAsset, createNetwork, createRewardWallet } from '../src/chain/service.ts';
import { createBudget } from '../src/budgets/service.ts';
import type { DB } from '../src/db/schema.ts';
import { systemClock } from '../src/domain/clock.ts';

/** A chain-token budget of `total` base units whose reward wallet holds gas and 10^18 of the token. */
export async function fundedChainBudget(db: Kysely<DB>, chain: DevChain, total: string) {
  const kek = randomBytes(32);
  const token = await chain.deployToken({ decimals: 6 });
  const network = await createNetwork(db, systemClock, {
    name: 'dev',
    chainId: chain.chainId,
    rpcUrl: chain.rpcUrl,
  });
  const asset = await createChainAsset(db, systemClock, {
    networkId: network.id,
    symbol: 'TST',
    name: 'Test',
    tokenAddress: token,
  });
  const budget = await createBudget(db, systemClock, { type: 'FIXED', assetId: asset.id, name: 'b', total });
  const wallet = await createRewardWallet(db, systemClock, kek, { budgetId: budget.id });
  await chain.setNativeBalance(wallet.address as `0x${string}`, 10n ** 24n);
  await chain.mintToken(token, wallet.address as `0x${string}`, 10n ** 18n);
  return { kek, token, budget, wallet };
}

/** `count` platform accounts `acc_<prefix>_<i>`, each with a new wallet bound on the chain. */
export async function accountsWithWallets(db: Kysely<DB>, chainId: number, prefix: string, count: number) {
  const users = Array.from({ length: count }, (_, i) => ({
    accountId: `acc_${prefix}_${i}`,
    address: privateKeyToAccount(generatePrivateKey()).address,
  }));
  for (let i = 0; i < users.length; i += 1000) {
    const chunk = users.slice(i, i + 1000);
    await db
      .insertInto('platform_accounts')
      .values(
        chunk.map((u) => ({ id: u.accountId, issuer: prefix, subject: u.accountId, display_name: null })),
      )
      .execute();
    await db
      .insertInto('user_wallets')
      .values(
        chunk.map((u) => ({
          account_id: u.accountId,
          address: u.address.toLowerCase(),
          chain_id: chainId,
          bound_at: new Date(),
        })),
      )
      .execute();
  }
  return users;
}
