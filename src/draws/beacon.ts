// The chain beacon of a lucky draw (issue #28 item 1): a draw whose budget pays on a chain mixes the
// hash of the first block mined after its close into its seed, so that nobody, not even a reader of
// draw_seeds, can compute the winners while tickets can still be added. The block is the first
// one whose timestamp is after closesAt, used only once the network's confirmations are on top of
// it; when the chain does not answer or the block is not there yet the run waits (503), it never
// takes another block.
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import { rpcClient, rpcFailure } from '../chain/rpc.ts';
import { drawChainUnavailable, drawWaitingForBlock } from '../error-factories.ts';
import { beaconNetwork, chainOfBudget } from './store.ts';

/** The network a budget's asset is on (the draw's beacon), or undefined for a ledger budget. */
export async function beaconNetworkOfBudget(
  db: Kysely<DB> | Transaction<DB>,
  budgetId: string,
): Promise<{ id: string; chainId: number } | undefined> {
  const row = await chainOfBudget(db, budgetId);
  return row && { id: row.id, chainId: Number(row.chain_id) };
}

export interface BeaconBlock {
  number: bigint;
  hash: string;
  /** Seconds since the epoch, as the chain says. */
  timestamp: bigint;
}

/** The reads the search needs (a viem PublicClient has them). */
export interface BlockReader {
  getBlock(args: { blockTag: 'latest' } | { blockNumber: bigint }): Promise<{
    number: bigint | null;
    hash: string | null;
    timestamp: bigint;
  }>;
}

export type BlockSearch = { found: BeaconBlock } | { waiting: string };

/**
 * The first block mined after `closesAt` (its timestamp, in seconds, is after the instant), once
 * `confirmations` blocks (itself included) are on the chain; else why it waits. Gallops back from
 * the newest block and then bisects, so a draw run soon after its close reads a few blocks.
 * Block timestamps never decrease along a chain, which the bisection relies on.
 */
export async function firstBlockAfter(
  client: BlockReader,
  closesAt: Date,
  confirmations: number,
): Promise<BlockSearch> {
  // timestamp * 1000 > closesAt in ms  <=>  timestamp > floor(ms / 1000)
  const close = BigInt(Math.floor(closesAt.getTime() / 1000));
  const read = async (args: { blockTag: 'latest' } | { blockNumber: bigint }): Promise<BeaconBlock> => {
    const block = await client.getBlock(args);
    if (block.number === null || block.hash === null) throw new Error('the node answered a pending block');
    return { number: block.number, hash: block.hash.toLowerCase(), timestamp: block.timestamp };
  };
  const latest = await read({ blockTag: 'latest' });
  if (latest.timestamp <= close)
    return {
      waiting: `no block after ${closesAt.toISOString()} yet (the newest, #${latest.number}, has timestamp ${latest.timestamp})`,
    };
  // `after` is mined after the close; `before` (or -1: none) at or before it.
  let after = latest;
  let before = -1n;
  for (let step = 1n; ; step *= 2n) {
    const number = after.number - step;
    if (number < 0n) break;
    const block = await read({ blockNumber: number });
    if (block.timestamp <= close) {
      before = number;
      break;
    }
    after = block;
  }
  while (after.number - before > 1n) {
    const block = await read({ blockNumber: (before + after.number) / 2n });
    if (block.timestamp <= close) before = block.number;
    else after = block;
  }
  const have = latest.number - after.number + 1n;
  if (have < BigInt(Math.max(1, confirmations)))
    return {
      waiting: `block #${after.number} has ${have} of its ${confirmations} confirmations`,
    };
  return { found: after };
}

/**
 * The beacon block of a draw on its network, or a 503 error: DRAW_WAITING_FOR_BLOCK (not mined or
 * not confirmed yet) or DRAW_CHAIN_UNAVAILABLE (the RPC endpoint did not answer).
 */
export async function beaconBlockOfDraw(
  db: Kysely<DB>,
  draw: { id: string; closes_at: Date; beacon_network_id: string },
): Promise<BeaconBlock> {
  const network = await beaconNetwork(db, draw.beacon_network_id);
  const chainId = Number(network.chain_id);
  let search: BlockSearch;
  try {
    search = await firstBlockAfter(
      rpcClient({ ...network, chain_id: chainId }),
      draw.closes_at,
      network.confirmations,
    );
  } catch (error) {
    throw drawChainUnavailable(draw.id, chainId, rpcFailure(error));
  }
  if ('waiting' in search) throw drawWaitingForBlock(draw.id, search.waiting);
  return search.found;
}
