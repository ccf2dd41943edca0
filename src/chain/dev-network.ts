// The development chain of `npm start`, like the development login: with no other network
// registered it starts the embedded chain, registers it and its test token, and funds reward wallets.
import { createWalletClient, http, keccak256, parseAbi, toHex } from 'viem';
import type { Address } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import { parseAmount } from '../domain/amounts.ts';
import { chainRpcUnavailable, notADevChainWallet, rewardWalletNotFound } from '../error-factories.ts';
import { compileTestTokens, DEV_CHAIN_ID, startDevChain } from './dev-chain.ts';
import type { DevChain } from './dev-chain.ts';
import { chainFor, rpcClient } from './rpc.ts';
import { chainDb } from './schema.ts';
import { findBudgetChainAsset, findNetwork, findWalletOfBudget } from './store.ts';

/** Fixed ids, so that every start finds the rows of the earlier ones. */
export const DEV_NETWORK_ID = 'net_devchain';
export const DEV_ASSET_ID = 'ast_devtoken';
export const DEV_TOKEN_SYMBOL = 'DEVT';

/**
 * The deployer of the dev token, the same at every start: its first transaction (the deployment,
 * nonce 0) therefore puts the token at the same address on every new instance of the chain. A key
 * anyone can derive: it only ever holds coins of a chain that lives in this process.
 */
export const DEV_DEPLOYER_KEY = keccak256(toHex('mission-reward-service development chain deployer'));

/** What the faucet gives a reward wallet for gas when asked: 1,000 coins. */
const FAUCET_GAS_WEI = 10n ** 21n;

interface Logger {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

/**
 * What of the development chain's start must run before the server answers: compiling the test
 * token (once per data folder, seconds of CPU on the event loop) when the chain will be started.
 * The chain itself starts after the server listens (startDevNetwork).
 */
export async function prepareDevNetwork(
  db: Kysely<DB>,
  config: Pick<Config, 'devChain' | 'nodeEnv' | 'dataDir'>,
): Promise<void> {
  if (!config.devChain || config.nodeEnv === 'production') return;
  if (await otherNetwork(db)) return;
  try {
    compileTestTokens(config.dataDir);
  } catch {
    // startDevNetwork meets the same failure and logs it.
  }
}

const otherNetwork = (db: Kysely<DB>) =>
  chainDb(db)
    .selectFrom('chain_networks')
    .select('name')
    .where('id', '<>', DEV_NETWORK_ID)
    .executeTakeFirst();

/**
 * Starts the development chain when DEV_CHAIN allows it and no other network is registered, and
 * (re-)registers it. Hardhat keeps its state in memory, so each start is a new chain: the token is
 * deployed again (same address), payouts still open on the earlier instance are marked REVERTED (their
 * claims are paid again on this one), and each reward wallet's on-chain nonce is set to the next
 * nonce the database will hand out. Answers undefined when not started; a failure is logged, not
 * fatal (the service works without a chain).
 */
export async function startDevNetwork(
  db: Kysely<DB>,
  clock: Clock,
  config: Pick<Config, 'devChain' | 'nodeEnv' | 'dataDir'>,
  log: Logger,
  options: { blockIntervalMs?: number } = {},
): Promise<DevChain | undefined> {
  if (!config.devChain || config.nodeEnv === 'production') return undefined;
  const other = await otherNetwork(db);
  if (other) {
    log.info({ network: other.name }, 'a chain network is registered: the development chain is not started');
    return undefined;
  }
  let chain: DevChain | undefined;
  try {
    chain = await startDevChain({
      dataDir: config.dataDir,
      nodeEnv: config.nodeEnv,
      funderKey: DEV_DEPLOYER_KEY,
      blockIntervalMs: options.blockIntervalMs,
    });
    const token = await chain.deployToken({ decimals: 18, symbol: DEV_TOKEN_SYMBOL });
    const { stalePayouts, wallets } = await registerDevNetwork(db, clock, chain.rpcUrl, token);
    for (const wallet of wallets) {
      await chain.client.request({
        method: 'hardhat_setNonce' as never,
        params: [wallet.address, `0x${wallet.nextNonce.toString(16)}`] as never,
      });
    }
    log.info(
      {
        rpcUrl: chain.rpcUrl,
        chainId: DEV_CHAIN_ID,
        token,
        networkId: DEV_NETWORK_ID,
        assetId: DEV_ASSET_ID,
        stalePayouts,
      },
      'development chain started (DEV_CHAIN=false turns it off)',
    );
    return chain;
  } catch (error) {
    await chain?.stop();
    log.error({ err: error }, 'the development chain did not start; chain payouts wait for a network');
    return undefined;
  }
}

/** The network and token rows of this instance, and the clean-up of the earlier instance's open payouts. */
async function registerDevNetwork(db: Kysely<DB>, clock: Clock, rpcUrl: string, token: Address) {
  const now = clock.now();
  return chainDb(db)
    .transaction()
    .execute(async (trx) => {
      await trx
        .insertInto('chain_networks')
        .values({
          id: DEV_NETWORK_ID,
          name: 'Development chain',
          chain_id: DEV_CHAIN_ID,
          rpc_url: rpcUrl,
          confirmations: 1,
          explorer_tx_url: null,
          created_at: now,
        })
        .onConflict((oc) => oc.column('id').doUpdateSet({ rpc_url: rpcUrl }))
        .execute();
      await trx
        .insertInto('reward_assets')
        .values({
          id: DEV_ASSET_ID,
          symbol: DEV_TOKEN_SYMBOL,
          name: 'Development chain test token',
          decimals: 18,
          created_at: now,
          updated_at: now,
        })
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
      await trx
        .insertInto('chain_assets')
        .values({
          asset_id: DEV_ASSET_ID,
          network_id: DEV_NETWORK_ID,
          token_address: token.toLowerCase(),
          created_at: now,
        })
        .onConflict((oc) => oc.column('asset_id').doUpdateSet({ token_address: token.toLowerCase() }))
        .execute();
      const stale = await trx
        .updateTable('chain_payouts')
        .set({
          status: 'REVERTED',
          last_error: 'the development chain restarted: this transaction was lost with its earlier instance',
          settled_at: now,
          updated_at: now,
        })
        .where('status', 'in', ['SIGNED', 'BROADCAST'])
        .where('wallet_id', 'in', (eb) =>
          eb.selectFrom('reward_wallets').select('id').where('network_id', '=', DEV_NETWORK_ID),
        )
        .executeTakeFirst();
      const wallets = await trx
        .selectFrom('reward_wallets as w')
        .innerJoin('reward_wallet_nonces as n', 'n.wallet_id', 'w.id')
        .select(['w.address', 'n.next_nonce'])
        .where('w.network_id', '=', DEV_NETWORK_ID)
        .execute();
      return {
        stalePayouts: Number(stale.numUpdatedRows),
        wallets: wallets.map((w) => ({ address: w.address, nextNonce: Number(w.next_nonce) })),
      };
    });
}

/**
 * The dev faucet: gives a budget's reward wallet on the development chain coins for gas and
 * `amount` whole units of the budget's asset (minted; the test token's mint is open).
 */
export async function fundFromDevFaucet(db: Kysely<DB>, budgetId: string, amount: string): Promise<void> {
  const cdb = chainDb(db);
  const wallet = await findWalletOfBudget(cdb, budgetId);
  if (!wallet) throw rewardWalletNotFound(budgetId);
  const network = await findNetwork(cdb, wallet.network_id);
  if (!network || network.id !== DEV_NETWORK_ID) throw notADevChainWallet(budgetId);
  const asset = await findBudgetChainAsset(cdb, budgetId);
  const units = parseAmount(amount, asset?.decimals ?? 18);
  const client = rpcClient(network);
  const address = wallet.address as Address;
  const token = (asset?.token_address ?? null) as Address | null;
  try {
    const gas = await client.getBalance({ address });
    await client.request({
      method: 'hardhat_setBalance' as never,
      params: [address, `0x${(gas + FAUCET_GAS_WEI + (token ? 0n : units)).toString(16)}`] as never,
    });
    if (token && units > 0n) {
      const funder = createWalletClient({
        account: privateKeyToAccount(DEV_DEPLOYER_KEY),
        chain: chainFor(network.chain_id, network.rpc_url),
        transport: http(network.rpc_url),
      });
      const hash = await funder.writeContract({
        address: token,
        abi: parseAbi(['function mint(address to, uint256 amount)']),
        functionName: 'mint',
        args: [address, units],
      });
      await client.waitForTransactionReceipt({ hash, pollingInterval: 50, timeout: 30_000 });
    }
  } catch (error) {
    throw chainRpcUnavailable('the development chain', { cause: error });
  }
}
