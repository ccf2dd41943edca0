// Operator use cases of the chain payout's networks (checked against eth_chainId, steered by an
// OWNER: RPC URLs, disable, remove) and of the assets on them (decimals read from the contract, a
// dry-run transfer).
import { ContractFunctionExecutionError, ContractFunctionZeroDataError, erc20Abi } from 'viem';
import type { Address, PublicClient } from 'viem';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import { newId } from '../domain/ids.ts';
import {
  chainIdMismatch,
  chainNetworkNotFound,
  chainRpcUnavailable,
  notATokenContract,
  unsupportedToken,
  chainNetworkInUse,
} from '../error-factories.ts';
import { checkRpcUrl } from './rpc-urls.ts';
import { rpcClient, rpcFailure } from './rpc.ts';
import {
  findNetwork,
  insertChainAsset,
  insertNetwork,
  listNetworkRows,
  networkInUse,
  removeNetwork,
  setNetworkSettings,
} from './store.ts';
import type { NetworkRow, NewNetwork } from './store.ts';

export interface NetworkView {
  id: string;
  name: string;
  chainId: number;
  rpcUrl: string;
  /** rpcUrl and its fallbacks, tried in this order. */
  rpcUrls: string[];
  confirmations: number;
  explorerTxUrl: string | null;
  /** False while an operator has it disabled: nothing is signed or sent on it. */
  enabled: boolean;
  createdAt: string;
}

function networkView(row: NetworkRow): NetworkView {
  return {
    id: row.id,
    name: row.name,
    chainId: Number(row.chain_id),
    rpcUrl: row.rpc_url,
    rpcUrls: [row.rpc_url, ...(row.fallback_rpc_urls ?? [])],
    confirmations: row.confirmations,
    explorerTxUrl: row.explorer_tx_url,
    enabled: !row.disabled_at,
    createdAt: row.created_at.toISOString(),
  };
}

/** Where RPC URLs may point: CHAIN_RPC_ALLOWED_HOSTS (undefined = anywhere). */
export interface RpcUrlRules {
  allowedHosts: readonly string[] | undefined;
}

/** Every URL answers this chain id (each is tried: a fallback that is another chain must not be saved). */
async function checkChainId(chainId: number, urls: string[], rules: RpcUrlRules): Promise<void> {
  for (const [i, url] of urls.entries())
    await checkRpcUrl(i === 0 ? 'rpcUrl' : `rpcUrls[${i}]`, url, rules.allowedHosts);
  for (const url of urls) {
    const answered = await rpcClient({ chain_id: chainId, rpc_url: url })
      .getChainId()
      .catch((error: unknown) => unreachable(`network ${new URL(url).host}`, error));
    if (answered !== chainId) throw chainIdMismatch(answered, chainId);
  }
}

/**
 * An operator steers a network (OWNER, audited by the chain_networks trigger): its RPC URLs (the
 * first is tried first; each must answer the network's chain id), explorer URL, confirmations, or
 * disables / enables it. A disabled network's claims wait and nothing is signed or sent on it.
 */
export async function updateNetwork(
  db: Kysely<DB>,
  clock: Clock,
  rules: RpcUrlRules,
  id: string,
  input: { rpcUrls?: string[]; explorerTxUrl?: string | null; confirmations?: number; enabled?: boolean },
): Promise<NetworkView> {
  const network = await requireNetwork(db, id);
  if (input.rpcUrls) await checkChainId(Number(network.chain_id), input.rpcUrls, rules);
  if (input.explorerTxUrl)
    await checkRpcUrl('explorerTxUrl', input.explorerTxUrl.replace('{hash}', '0x'), undefined);
  await setNetworkSettings(db, id, {
    ...(input.rpcUrls && {
      rpc_url: input.rpcUrls[0] as string,
      fallback_rpc_urls: input.rpcUrls.slice(1),
    }),
    ...(input.explorerTxUrl !== undefined && { explorer_tx_url: input.explorerTxUrl }),
    ...(input.confirmations !== undefined && { confirmations: input.confirmations }),
    ...(input.enabled !== undefined && {
      disabled_at: input.enabled ? null : (network.disabled_at ?? clock.now()),
    }),
  });
  return networkView(await requireNetwork(db, id));
}

/** Removes a network that nothing uses (no asset, no wallet); one in use is disabled instead (3624). */
export async function deleteNetwork(db: Kysely<DB>, id: string): Promise<void> {
  await requireNetwork(db, id);
  const used = await networkInUse(db, id);
  if (used) throw chainNetworkInUse(id);
  await removeNetwork(db, id);
}

/** The RPC endpoint did not answer: the answer says how (status, timeout, socket code), never what it replied. */
export function unreachable(what: string, error: unknown): never {
  throw chainRpcUnavailable(what, { cause: new Error(rpcFailure(error)) });
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
  rules: RpcUrlRules = { allowedHosts: undefined },
): Promise<NetworkView> {
  await checkChainId(input.chainId, [input.rpcUrl], rules);
  const now = clock.now();
  const row = {
    id: newId('net'),
    name: input.name,
    chain_id: input.chainId,
    rpc_url: input.rpcUrl,
    confirmations: input.confirmations ?? 1,
    explorer_tx_url: input.explorerTxUrl ?? null,
    created_at: now,
  } satisfies NewNetwork;
  await insertNetwork(db, row);
  return networkView({
    ...row,
    disabled_at: null,
    fallback_rpc_urls: [],
    genesis_hash: null,
    reset_at: null,
  });
}

export async function listNetworks(db: Kysely<DB>): Promise<NetworkView[]> {
  return (await listNetworkRows(db)).map(networkView);
}

export async function requireNetwork(db: Kysely<DB>, id: string): Promise<NetworkRow> {
  const network = await findNetwork(db, id);
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
    await dryRunTransfer(client, token, network.name);
  }
  const id = newId('ast');
  await insertChainAsset(db, {
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

/**
 * A transfer of nothing from an address with nothing, by eth_call: a standard ERC-20 answers true.
 * One that answers false (it would "succeed" without moving anything) or reverts is refused. A token
 * that takes a fee cannot be seen this way: the payout's Transfer check fails its payouts instead.
 */
async function dryRunTransfer(client: PublicClient, token: Address, networkName: string): Promise<void> {
  const probe = '0x000000000000000000000000000000000000dEaD' as Address;
  let answer: boolean | undefined;
  try {
    ({ result: answer } = await client.simulateContract({
      address: token,
      abi: erc20Abi,
      functionName: 'transfer',
      args: [probe, 0n],
      account: '0x0000000000000000000000000000000000000001',
    }));
  } catch (error) {
    if (!(error instanceof ContractFunctionExecutionError)) unreachable(`network ${networkName}`, error);
    // A token without a return value (USDT-like) decodes as an error here: allowed, the Transfer check decides.
    if (error.walk((e) => e instanceof ContractFunctionZeroDataError)) return;
    throw unsupportedToken(token, networkName, 'a dry-run transfer of 0 reverts');
  }
  if (answer === false) throw unsupportedToken(token, networkName, 'its transfer returns false');
}
