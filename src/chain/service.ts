// Operator use cases of the chain payout: networks (checked against eth_chainId), assets on them
// (decimals read from the contract), reward wallets (created or imported, keys encrypted) and
// their view with on-chain balances and what they still owe.
import { erc20Abi, getAddress, isAddress } from 'viem';
import type { Address } from 'viem';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import { newId } from '../domain/ids.ts';
import {
  budgetNotFound,
  chainIdMismatch,
  chainNetworkNotFound,
  chainRpcUnavailable,
  invalidPrivateKey,
  notAChainBudget,
  notATokenContract,
  notAnEvmAddress,
  rewardKeyTaken,
  rewardWalletExists,
  rewardWalletNotFound,
} from '../error-factories.ts';
import { formatAmount } from '../domain/amounts.ts';
import { rpcClient } from './rpc.ts';
import { chainDb } from './schema.ts';
import { addressOfPrivateKey, createPrivateKey, encryptPrivateKey } from './signer.ts';
import type { Hex } from 'viem';
import { NATIVE_TRANSFER_GAS, TOKEN_TRANSFER_GAS } from './outbox.ts';
import {
  findBudgetChainAsset,
  findNetwork,
  findWalletOfBudget,
  insertChainAsset,
  insertNetwork,
  insertWallet,
  listNetworkRows,
  owedByBudget,
  unsettledOutflows,
} from './store.ts';
import type { NetworkRow, WalletRow } from './store.ts';

export interface NetworkView {
  id: string;
  name: string;
  chainId: number;
  rpcUrl: string;
  confirmations: number;
  explorerTxUrl: string | null;
  createdAt: string;
}

function networkView(row: NetworkRow): NetworkView {
  return {
    id: row.id,
    name: row.name,
    chainId: Number(row.chain_id),
    rpcUrl: row.rpc_url,
    confirmations: row.confirmations,
    explorerTxUrl: row.explorer_tx_url,
    createdAt: row.created_at.toISOString(),
  };
}

function unreachable(what: string, error: unknown): never {
  throw chainRpcUnavailable(what, { cause: error });
}

/** Saves a network after its RPC endpoint confirms the chain id. */
export async function createNetwork(
  db: Kysely<DB>,
  clock: Clock,
  input: {
    name: string;
    chainId: number;
    rpcUrl: string;
    confirmations?: number;
    explorerTxUrl?: string | null;
  },
): Promise<NetworkView> {
  const client = rpcClient({ chain_id: input.chainId, rpc_url: input.rpcUrl });
  const answered = await client
    .getChainId()
    .catch((error: unknown) => unreachable(`network ${input.rpcUrl}`, error));
  if (answered !== input.chainId) throw chainIdMismatch(answered, input.chainId);
  const row: NetworkRow = {
    id: newId('net'),
    name: input.name,
    chain_id: input.chainId,
    rpc_url: input.rpcUrl,
    confirmations: input.confirmations ?? 1,
    explorer_tx_url: input.explorerTxUrl ?? null,
    created_at: clock.now(),
  };
  await insertNetwork(chainDb(db), row);
  return networkView(row);
}

export async function listNetworks(db: Kysely<DB>): Promise<NetworkView[]> {
  return (await listNetworkRows(chainDb(db))).map(networkView);
}

async function requireNetwork(db: Kysely<DB>, id: string): Promise<NetworkRow> {
  const network = await findNetwork(chainDb(db), id);
  if (!network) throw chainNetworkNotFound(id);
  return network;
}

export interface ChainAssetView {
  id: string;
  symbol: string;
  name: string;
  decimals: number | null;
  networkId: string;
  tokenAddress: string | null;
}

/**
 * Registers a reward asset on a chain: the native coin (18 decimals) or a token contract, whose
 * decimals are read from it; a contract without decimals() leaves them unset (1402 until set).
 */
export async function createChainAsset(
  db: Kysely<DB>,
  clock: Clock,
  input: { networkId: string; symbol: string; name: string; tokenAddress?: string | null },
): Promise<ChainAssetView> {
  const network = await requireNetwork(db, input.networkId);
  const token = input.tokenAddress ? (input.tokenAddress.toLowerCase() as Address) : null;
  let decimals: number | null = 18;
  if (token) {
    const client = rpcClient(network);
    const code = await client
      .getCode({ address: token })
      .catch((error: unknown) => unreachable(`network ${network.name}`, error));
    if (!code || code === '0x') throw notATokenContract(token, network.name);
    decimals = await client.readContract({ address: token, abi: erc20Abi, functionName: 'decimals' }).then(
      (value) => (value <= 36 ? value : null),
      () => null,
    );
  }
  const id = newId('ast');
  await insertChainAsset(chainDb(db), {
    id,
    symbol: input.symbol,
    name: input.name,
    decimals,
    networkId: network.id,
    tokenAddress: token,
    now: clock.now(),
  });
  return { id, symbol: input.symbol, name: input.name, decimals, networkId: network.id, tokenAddress: token };
}

export interface WalletView {
  id: string;
  budgetId: string;
  networkId: string;
  address: string;
  keyOrigin: 'CREATED' | 'IMPORTED';
  createdAt: string;
}

function walletView(row: WalletRow): WalletView {
  return {
    id: row.id,
    budgetId: row.budget_id,
    networkId: row.network_id,
    address: getAddress(row.address),
    keyOrigin: row.key_origin,
    createdAt: row.created_at.toISOString(),
  };
}

/** Creates a budget's reward wallet with a new key, or imports the operator's key. */
export async function createRewardWallet(
  db: Kysely<DB>,
  clock: Clock,
  kek: Buffer,
  input: { budgetId: string; privateKey?: string },
): Promise<WalletView> {
  const cdb = chainDb(db);
  const asset = await findBudgetChainAsset(cdb, input.budgetId);
  if (!asset) {
    const budget = await cdb
      .selectFrom('budgets')
      .select('id')
      .where('id', '=', input.budgetId)
      .executeTakeFirst();
    if (!budget) throw budgetNotFound(input.budgetId);
    throw notAChainBudget(input.budgetId);
  }
  if (await findWalletOfBudget(cdb, input.budgetId)) throw rewardWalletExists(input.budgetId);
  let privateKey: Hex;
  let address: Address;
  if (input.privateKey === undefined) {
    ({ privateKey, address } = createPrivateKey());
  } else {
    try {
      address = addressOfPrivateKey(input.privateKey);
    } catch (error) {
      throw invalidPrivateKey({ cause: error });
    }
    privateKey = input.privateKey as Hex;
  }
  const network = await requireNetwork(db, asset.network_id);
  // An imported key may have sent transactions already: its first nonce is the chain's count.
  const firstNonce =
    input.privateKey === undefined
      ? 0
      : await rpcClient(network)
          .getTransactionCount({ address, blockTag: 'pending' })
          .catch((error: unknown) => unreachable(`network ${network.name}`, error));
  const row: WalletRow = {
    id: newId('rwl'),
    budget_id: input.budgetId,
    network_id: network.id,
    address: address.toLowerCase(),
    encrypted_key: encryptPrivateKey(kek, privateKey, address),
    key_origin: input.privateKey === undefined ? 'CREATED' : 'IMPORTED',
    created_at: clock.now(),
  };
  try {
    await insertWallet(cdb, row, firstNonce);
  } catch (error) {
    if ((error as { code?: string }).code === '23505') throw rewardKeyTaken({ cause: error });
    throw error;
  }
  return walletView(row);
}

export interface WalletBalancesView extends WalletView {
  symbol: string;
  decimals: number | null;
  tokenAddress: string | null;
  /** Whole units of the asset the wallet holds on chain (null when the node did not answer). */
  tokenBalance: string | null;
  /** Native coin for gas, in wei. */
  gasBalanceWei: string | null;
  /** Whole units still owed: claims not yet paid and payouts not yet settled. */
  owed: string;
  /** Set when the wallet cannot cover what it owes (tokens or gas), or its balances are unknown. */
  warning: string | null;
}

/** The budget's wallet with its on-chain balances, what it owes, and a warning when short. */
export async function viewRewardWallet(db: Kysely<DB>, budgetId: string): Promise<WalletBalancesView> {
  const cdb = chainDb(db);
  const wallet = await findWalletOfBudget(cdb, budgetId);
  if (!wallet) throw rewardWalletNotFound(budgetId);
  const asset = await findBudgetChainAsset(cdb, budgetId);
  const network = await requireNetwork(db, wallet.network_id);
  const decimals = asset?.decimals ?? null;
  const token = (asset?.token_address ?? null) as Address | null;
  const owed = BigInt(await owedByBudget(cdb, budgetId));
  const outflows = await unsettledOutflows(cdb, wallet.id);
  const client = rpcClient(network);
  const address = wallet.address as Address;
  const balances = await Promise.all([
    client.getBalance({ address }),
    token
      ? client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [address] })
      : Promise.resolve(null),
  ]).catch(() => null);
  const format = (units: bigint) =>
    decimals === null ? units.toString() : formatAmount(units.toString(), decimals);
  let warning: string | null = null;
  if (!balances) {
    warning = `balances unknown: the RPC endpoint of ${network.name} did not answer`;
  } else {
    const [gas, tokens] = balances;
    // Gas for every owed transfer at the fee already signed (or, for unsigned ones, that of the last batch).
    const fee = outflows.count > 0 ? outflows.gasWei / BigInt(outflows.count) : 0n;
    const perTransfer = fee > 0n ? fee : (token ? TOKEN_TRANSFER_GAS : NATIVE_TRANSFER_GAS) * 1_000_000_000n;
    const transfers = owed > 0n ? BigInt(outflows.count) + 1n : 0n;
    const gasNeeded = (token ? 0n : owed) + perTransfer * transfers;
    const short: string[] = [];
    if (token && tokens !== null && tokens < owed)
      short.push(`it holds ${format(tokens)} ${asset?.symbol} but owes ${format(owed)}`);
    if (gas < gasNeeded)
      short.push(`its gas balance ${gas} wei may not cover the transfers it owes (about ${gasNeeded} wei)`);
    if (short.length > 0) warning = `reward wallet cannot cover what it owes: ${short.join('; ')}`;
  }
  return {
    ...walletView(wallet),
    symbol: asset?.symbol ?? '',
    decimals,
    tokenAddress: token ? getAddress(token) : null,
    tokenBalance: balances ? format(token ? (balances[1] as bigint) : balances[0]) : null,
    gasBalanceWei: balances ? balances[0].toString() : null,
    owed: format(owed),
    warning,
  };
}

/** Checks an address and answers it lower-case (how it is stored). */
export function normalizeAddress(value: string): string {
  if (!isAddress(value, { strict: false })) throw notAnEvmAddress(value);
  return value.toLowerCase();
}
