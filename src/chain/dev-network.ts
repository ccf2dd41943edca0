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
import { findBudgetChainAsset, findNetwork, findWalletOfBudget, owedByBudget } from './store.ts';
import {
  DEV_ASSET_ID,
  DEV_NETWORK_ID,
  DEV_TOKEN_SYMBOL,
  disableDevNetwork,
  dropDevNetworkRows,
  otherNetwork,
  registerDevNetwork,
  walletOnDevNetwork,
} from './dev-network-store.ts';

export { DEV_ASSET_ID, DEV_NETWORK_ID, DEV_TOKEN_SYMBOL } from './dev-network-store.ts';

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
    const earlier = await retireDevNetwork(db, clock);
    log.info(
      { network: other.name, devNetwork: earlier },
      'a chain network is registered: the development chain is not started',
    );
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
    const genesis = (await chain.client.getBlock({ blockNumber: 0n })).hash;
    const { stalePayouts, wallets, reset, lostConfirmed } = await registerDevNetwork(
      db,
      clock.now(),
      DEV_CHAIN_ID,
      chain.rpcUrl,
      token,
      genesis,
    );
    for (const wallet of wallets) {
      await chain.client.request({
        method: 'hardhat_setNonce' as never,
        params: [wallet.address, `0x${wallet.nextNonce.toString(16)}`] as never,
      });
    }
    // A new chain has none of the earlier one's balances: each wallet gets gas and what it owes plus
    // the faucet's default, so claims are not failed "lacks DEVT" after every restart.
    if (reset)
      for (const wallet of wallets) {
        const owed = BigInt(await owedByBudget(db, wallet.budgetId, wallet.nextNonce));
        await fundDevWallet(db, wallet.budgetId, owed + FAUCET_DEFAULT_TOKENS);
      }
    if (reset)
      log.warn(
        { lostConfirmed, refunded: wallets.length },
        'the development chain was reset (a new chain at every start): payouts confirmed on the earlier one are marked lost with it, reward wallets funded again',
      );
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

/**
 * A real network is registered, so the development chain does not start: its row would stay with the
 * URL of a chain that is gone. Nothing uses it (no reward wallet, no budget or claim of its token):
 * its rows are dropped. Something does: it is disabled, so its claims wait (no attempt counted) and
 * nothing is sent to a dead URL; its history stays, and a later start of the chain enables it again.
 * Answers what was done ('dropped', 'disabled', or undefined when there was no such row).
 */
export async function retireDevNetwork(
  db: Kysely<DB>,
  clock: Clock,
): Promise<'dropped' | 'disabled' | undefined> {
  const cdb = db;
  const row = await findNetwork(cdb, DEV_NETWORK_ID);
  if (!row) return undefined;
  const wallet = await walletOnDevNetwork(cdb);
  if (!wallet) {
    try {
      await dropDevNetworkRows(cdb);
      return 'dropped';
    } catch (error) {
      if ((error as { code?: string }).code !== '23503') throw error;
    }
  }
  if (!row.disabled_at) await disableDevNetwork(cdb, clock.now());
  return 'disabled';
}

/**
 * The dev faucet: gives a budget's reward wallet on the development chain coins for gas and
 * `amount` whole units of the budget's asset (minted; the test token's mint is open).
 */
export async function fundFromDevFaucet(db: Kysely<DB>, budgetId: string, amount: string): Promise<void> {
  const asset = await findBudgetChainAsset(db, budgetId);
  await fundDevWallet(db, budgetId, parseAmount(amount, asset?.decimals ?? 18));
}

/** What the faucet gives when no amount is named, and on top of what is owed after a reset: 1000 DEVT. */
const FAUCET_DEFAULT_TOKENS = 1000n * 10n ** 18n;

/** The faucet, in base units of the budget's asset. */
async function fundDevWallet(db: Kysely<DB>, budgetId: string, units: bigint): Promise<void> {
  const cdb = db;
  const wallet = await findWalletOfBudget(cdb, budgetId);
  if (!wallet) throw rewardWalletNotFound(budgetId);
  const network = await findNetwork(cdb, wallet.network_id);
  if (!network || network.id !== DEV_NETWORK_ID) throw notADevChainWallet(budgetId);
  const asset = await findBudgetChainAsset(cdb, budgetId);
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
