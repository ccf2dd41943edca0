// Step 3 of the chain payout, CONFIRM: the receipts of broadcast payouts are read; one with the
// network's confirmations settles its payout in one database transaction with its claim's outcome:
// CONFIRMED only when the receipt's Transfer moved exactly the amount from the reward wallet to the
// user (the native coin: the transaction's own value), REVERTED when the chain reverted it, FAILED
// when it was mined but moved nothing or another amount. A receipt read that fails because the node
// does not answer is not "not mined yet": that network's payouts wait, and none is replaced.
import {
  BaseError,
  ContractFunctionRevertedError,
  TransactionReceiptNotFoundError,
  decodeEventLog,
  erc20Abi,
  parseAbiItem,
} from 'viem';
import type { Address, Hex, PublicClient, TransactionReceipt } from 'viem';
import { groupBy } from '../domain/group-by.ts';
import type { ClaimOutcome } from './payout-types.ts';
import type { PayoutContext } from './payout-context.ts';
import { NetworkUnreachable } from './payout-context.ts';
import { lostConfirmedTransfers } from './payout-sign.ts';
import { listBroadcastPayouts, settlePayouts } from './payout-store.ts';
import { findWallet, haltedWallets } from './store.ts';
import type { OpenPayoutRow, Settlement } from './payout-store.ts';
import type { NetworkRow } from './store.ts';

/** OpenZeppelin 5's ERC-20 errors, so a revert reads as its name and values. */
const erc20Errors = [
  {
    type: 'error',
    name: 'ERC20InsufficientBalance',
    inputs: [
      { name: 'sender', type: 'address' },
      { name: 'balance', type: 'uint256' },
      { name: 'needed', type: 'uint256' },
    ],
  },
  { type: 'error', name: 'ERC20InvalidReceiver', inputs: [{ name: 'receiver', type: 'address' }] },
  { type: 'error', name: 'ERC20InvalidSender', inputs: [{ name: 'sender', type: 'address' }] },
] as const;
const tokenAbi = [...erc20Abi, ...erc20Errors];
const transferEvent = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');

type BroadcastPayout = OpenPayoutRow & { hashes: string[]; current_signed_at: Date };

/** A payout whose transaction is mined with its confirmations, and what the chain says it did. */
interface Mined {
  payout: BroadcastPayout;
  receipt: TransactionReceipt;
  settlement: Settlement;
}

export interface ConfirmRound {
  outcomes: ClaimOutcome[];
  /** Payouts long without a receipt on a network that answers: to be replaced. */
  stuck: BroadcastPayout[];
}

export async function confirm(ctx: PayoutContext): Promise<ConfirmRound> {
  const { db, clock, options } = ctx;
  const open = await listBroadcastPayouts(db, options.batchSize ?? 1000);
  if (open.length === 0) return { outcomes: [], stuck: [] };
  const now = clock.now();
  const replaceAfterMs = options.replaceAfterMs ?? 60_000;
  const mined: Mined[] = [];
  const stuck: BroadcastPayout[] = [];
  for (const [networkId, payouts] of groupBy(open, (payout) => payout.network_id)) {
    const network = await ctx.networkOf(networkId);
    const round = await ctx.onNetwork(network, (client) => readReceipts(ctx, client, network, payouts));
    if (!round) continue;
    mined.push(...round.mined);
    for (const payout of round.unmined)
      if (
        payout.status === 'BROADCAST' &&
        now.getTime() - new Date(payout.current_signed_at).getTime() >= replaceAfterMs
      )
        stuck.push(payout);
  }
  return { outcomes: await settle(ctx, mined, now), stuck };
}

async function readReceipts(
  ctx: PayoutContext,
  client: PublicClient,
  network: NetworkRow,
  payouts: BroadcastPayout[],
): Promise<{ mined: Mined[]; unmined: BroadcastPayout[] }> {
  const latest = await client.getBlockNumber({ cacheTime: 0 });
  const receipts = await Promise.all(
    payouts.map((p) => Promise.all(p.hashes.map((hash) => receiptOrNull(client, hash as Hex)))),
  );
  const mined: Mined[] = [];
  const unmined: BroadcastPayout[] = [];
  let lag = 0;
  const now = ctx.clock.now();
  for (const [i, payout] of payouts.entries()) {
    const receipt = receipts[i]?.find((r) => r !== null) ?? null;
    if (!receipt) {
      unmined.push(payout);
      continue;
    }
    const have = latest - receipt.blockNumber + 1n;
    if (have < BigInt(network.confirmations)) {
      lag = Math.max(lag, Number(BigInt(network.confirmations) - have));
      continue;
    }
    ctx.options.observe?.confirmed(
      network.name,
      Math.max(0, (now.getTime() - new Date(payout.current_signed_at).getTime()) / 1000),
    );
    mined.push({ payout, receipt, settlement: await settlementOf(client, payout, receipt) });
  }
  ctx.options.observe?.lag(network.name, lag);
  // A payout that waits while the chain's nonce is behind one the outbox settled never comes: a reorg
  // deeper than the confirmations removed a settled transfer. Its wallet stops (payout-sign.ts).
  for (const walletId of new Set(unmined.map((p) => p.wallet_id))) {
    const wallet = await findWallet(ctx.db, walletId);
    const minedNonce = await client.getTransactionCount({
      address: wallet?.address as Address,
      blockTag: 'latest',
    });
    if (wallet) await lostConfirmedTransfers(ctx, wallet, network.name, minedNonce);
  }
  const halted = new Set((await haltedWallets(ctx.db)).map((w) => w.id));
  return { mined, unmined: unmined.filter((p) => !halted.has(p.wallet_id)) };
}

/** A receipt, null when the node says the transaction is not mined; throws when the node does not answer. */
async function receiptOrNull(client: PublicClient, hash: Hex): Promise<TransactionReceipt | null> {
  try {
    return await client.getTransactionReceipt({ hash });
  } catch (error) {
    if (error instanceof TransactionReceiptNotFoundError) return null;
    throw new NetworkUnreachable(error);
  }
}

async function settlementOf(
  client: PublicClient,
  payout: BroadcastPayout,
  receipt: TransactionReceipt,
): Promise<Settlement> {
  const base = {
    payoutId: payout.id,
    minedHash: receipt.transactionHash,
    blockNumber: Number(receipt.blockNumber),
  };
  if (receipt.status !== 'success')
    return {
      ...base,
      status: 'REVERTED',
      error: await revertReason(client, payout, receipt.from, receipt.blockNumber),
    };
  const differs = transferDiffers(payout, receipt);
  return differs
    ? { ...base, status: 'FAILED', error: differs }
    : { ...base, status: 'CONFIRMED', error: null };
}

/**
 * Why a mined, successful transaction did not pay exactly the payout (null when it did). A token
 * transfer must leave exactly one Transfer log of that token, from the reward wallet to the user,
 * of the amount; the native coin's transfer is the signed transaction itself (its value cannot differ).
 */
export function transferDiffers(
  payout: Pick<OpenPayoutRow, 'to_address' | 'amount' | 'token_address'>,
  receipt: Pick<TransactionReceipt, 'from' | 'to' | 'logs'>,
): string | null {
  const wallet = receipt.from.toLowerCase();
  if (!payout.token_address)
    return (receipt.to ?? '').toLowerCase() === payout.to_address
      ? null
      : `the transaction went to ${receipt.to ?? 'nobody'}, not ${payout.to_address}`;
  const moves: Array<{ from: string; to: string; value: bigint }> = [];
  for (const log of receipt.logs) {
    if (log.address.toLowerCase() !== payout.token_address) continue;
    try {
      const event = decodeEventLog({ abi: [transferEvent], data: log.data, topics: log.topics });
      moves.push({
        from: event.args.from.toLowerCase(),
        to: event.args.to.toLowerCase(),
        value: event.args.value,
      });
    } catch {
      // another event of the token
    }
  }
  const [only] = moves;
  if (
    moves.length === 1 &&
    only?.from === wallet &&
    only.to === payout.to_address &&
    only.value === BigInt(payout.amount)
  )
    return null;
  if (moves.length === 0)
    return 'the token transfer succeeded but moved nothing (no Transfer log): the token is not supported';
  const described = moves.map((m) => `${m.value} from ${m.from} to ${m.to}`).join('; ');
  return `the token moved ${described} instead of exactly ${payout.amount} from ${wallet} to ${payout.to_address}: the token is not supported`.slice(
    0,
    500,
  );
}

async function revertReason(
  client: PublicClient,
  payout: { token_address: string | null; to_address: string; amount: string },
  from: Address,
  blockNumber: bigint,
): Promise<string> {
  if (!payout.token_address) return 'reverted on chain';
  try {
    await client.simulateContract({
      address: payout.token_address as Address,
      abi: tokenAbi,
      functionName: 'transfer',
      args: [payout.to_address as Address, BigInt(payout.amount)],
      account: from,
      blockNumber: blockNumber - 1n,
    });
    return 'reverted on chain';
  } catch (error) {
    const reverted =
      error instanceof BaseError ? error.walk((e) => e instanceof ContractFunctionRevertedError) : null;
    if (reverted instanceof ContractFunctionRevertedError && reverted.data) {
      return `reverted on chain: ${reverted.data.errorName}(${(reverted.data.args ?? []).map(String).join(', ')})`;
    }
    return 'reverted on chain';
  }
}

/** Settles the mined payouts and reports their claims' outcomes in the same database transaction. */
async function settle(ctx: PayoutContext, mined: Mined[], now: Date): Promise<ClaimOutcome[]> {
  if (mined.length === 0) return [];
  const { options } = ctx;
  let outcomes: ClaimOutcome[] = [];
  await ctx.db.transaction().execute(async (trx) => {
    const moved = await settlePayouts(
      trx,
      mined.map((m) => m.settlement),
      now,
    );
    outcomes = mined
      .filter((m) => moved.has(m.payout.id))
      .map(({ payout, settlement }) => ({
        claimId: payout.claim_id,
        status: settlement.status === 'CONFIRMED' ? 'SUCCEEDED' : 'FAILED',
        reason: settlement.error,
        txHash: settlement.minedHash,
        ...(settlement.status === 'FAILED' && { final: true }),
      }));
    if (outcomes.length > 0) await options.onSettled?.(trx, outcomes);
    await options.holdAt?.('mined');
  });
  for (const m of mined)
    if (m.settlement.status === 'FAILED' && outcomes.some((o) => o.claimId === m.payout.claim_id)) {
      options.log?.warn(`chain payout ${m.payout.id} FAILED: ${m.settlement.error}`);
      options.observe?.transferMismatch?.(m.payout.network_id);
    }
  return outcomes;
}
