// Operator use cases of reward wallets: created or imported (keys encrypted), their view with
// on-chain balances and what they still owe, their alerts, and their recovery after a reorg deeper
// than the confirmations (docs/payout.md).
import { TransactionReceiptNotFoundError, erc20Abi, getAddress, isAddress } from 'viem';
import type { Address } from 'viem';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import { systemClock } from '../domain/clock.ts';
import { newId } from '../domain/ids.ts';
import {
  budgetNotFound,
  invalidPrivateKey,
  notAChainBudget,
  notAnEvmAddress,
  rewardKeyTaken,
  rewardWalletExists,
  rewardWalletNotFound,
  rewardWalletRunning,
  unrecoverableNonce,
} from '../error-factories.ts';
import { formatAmount } from '../domain/amounts.ts';
import { rpcClient } from './rpc.ts';
import { addressOfPrivateKey, createPrivateKey, encryptPrivateKey } from './signer.ts';
import type { Hex } from 'viem';
import { NATIVE_TRANSFER_GAS, TOKEN_TRANSFER_GAS } from './outbox.ts';
import { unsettledOutflows } from './payout-store.ts';
import {
  findBudgetChainAsset,
  findWallet,
  findWalletOfBudget,
  lockNextNonce,
  insertWallet,
  owedByBudget,
  unsettleLostPayouts,
  budgetExists,
  networkResetAt,
  rebroadcastPending,
  releaseWallet,
  resentAfterReorg,
  settledPayoutsFromNonce,
} from './store.ts';
import { reopenClaimsAfterReorg } from '../claims/payout-outcomes.ts';
import { REORG_REOPEN_REASON } from './payout-types.ts';
import type { NewWallet, WalletRow } from './store.ts';
import { requireNetwork, unreachable } from './network-service.ts';

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
  const asset = await findBudgetChainAsset(db, input.budgetId);
  if (!asset) {
    const budget = await budgetExists(db, input.budgetId);
    if (!budget) throw budgetNotFound(input.budgetId);
    throw notAChainBudget(input.budgetId);
  }
  if (await findWalletOfBudget(db, input.budgetId)) throw rewardWalletExists(input.budgetId);
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
  const now = clock.now();
  const row = {
    id: newId('rwl'),
    budget_id: input.budgetId,
    network_id: network.id,
    address: address.toLowerCase(),
    encrypted_key: encryptPrivateKey(kek, privateKey, address),
    key_origin: input.privateKey === undefined ? 'CREATED' : 'IMPORTED',
    created_at: now,
  } satisfies NewWallet;
  try {
    await insertWallet(db, row, firstNonce);
  } catch (error) {
    if ((error as { code?: string }).code === '23505') throw rewardKeyTaken({ cause: error });
    throw error;
  }
  return walletView({ ...row, halted_at: null, halted_reason: null });
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
  const wallet = await findWalletOfBudget(db, budgetId);
  if (!wallet) throw rewardWalletNotFound(budgetId);
  const asset = await findBudgetChainAsset(db, budgetId);
  const network = await requireNetwork(db, wallet.network_id);
  const decimals = asset?.decimals ?? null;
  const token = (asset?.token_address ?? null) as Address | null;
  const client = rpcClient(network);
  const address = wallet.address as Address;
  // Balances and the wallet's nonce at one head: a payout mined (not yet confirmed) is already out of
  // the balance, so only payouts from the chain's nonce on are still owed from it (counted once).
  const balances = await client
    .getBlockNumber({ cacheTime: 0 })
    .then((blockNumber) =>
      Promise.all([
        client.getBalance({ address, blockNumber }),
        token
          ? client.readContract({
              address: token,
              abi: erc20Abi,
              functionName: 'balanceOf',
              args: [address],
              blockNumber,
            })
          : Promise.resolve(null),
        client.getTransactionCount({ address, blockNumber }),
      ]),
    )
    .catch(() => null);
  const owed = BigInt(await owedByBudget(db, budgetId, balances?.[2] ?? 0));
  const outflows = await unsettledOutflows(db, wallet.id, balances?.[2] ?? 0);
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

export interface RewardWalletAlertsView {
  walletId: string;
  halted: { at: string; reason: string } | null;
  devChainResetAt: string | null;
}

/** What the console's wallet panel must say first: halted (recover it), or its dev chain reset. */
export async function rewardWalletAlerts(db: Kysely<DB>, budgetId: string): Promise<RewardWalletAlertsView> {
  const cdb = db;
  const wallet = await findWalletOfBudget(cdb, budgetId);
  if (!wallet) throw rewardWalletNotFound(budgetId);
  const network = await networkResetAt(cdb, wallet.network_id);
  return {
    walletId: wallet.id,
    halted: wallet.halted_at
      ? { at: new Date(wallet.halted_at).toISOString(), reason: wallet.halted_reason ?? '' }
      : null,
    devChainResetAt: network?.reset_at ? new Date(network.reset_at).toISOString() : null,
  };
}

/** Checks an address and answers it lower-case (how it is stored). */
export function normalizeAddress(value: string): string {
  if (!isAddress(value, { strict: false })) throw notAnEvmAddress(value);
  return value.toLowerCase();
}

export interface WalletRecovery {
  walletId: string;
  /** The wallet's nonce on chain when recovered. */
  chainNonce: number;
  /** Payouts the chain lost, sent again as the very transactions that were signed (same nonces). */
  resent: Array<{ payoutId: string; claimId: string; nonce: number }>;
}

/**
 * Recovers a wallet halted by a reorg deeper than the confirmations (docs/operations.md). The payouts
 * the chain lost (taken back from CONFIRMED to BROADCAST when the wallet was halted, their claims
 * re-opened to REQUESTED; any still CONFIRMED from the chain's nonce on are taken back now) are sent
 * again with their own signed transactions: the same nonce can only ever pay the same claim, so a
 * recovery can never pay twice, whatever later happens to the lost transactions. Each claim is
 * SUCCEEDED again only when its payout is confirmed again. A lost REVERTED or FAILED payout (its nonce
 * would have to be filled with something else) is refused: the operator fills that nonce by hand
 * first. The wallet is then released.
 */
export async function recoverRewardWallet(
  db: Kysely<DB>,
  walletId: string,
  clock: Clock = systemClock,
): Promise<WalletRecovery> {
  const wallet = await findWallet(db, walletId);
  if (!wallet) throw rewardWalletNotFound(walletId);
  if (!wallet.halted_at) throw rewardWalletRunning(walletId);
  const network = await requireNetwork(db, wallet.network_id);
  const client = rpcClient(network);
  const chainNonce = await client
    .getTransactionCount({ address: wallet.address as Address, blockTag: 'latest' })
    .catch((error: unknown) => unreachable(`network ${network.name}`, error));
  const lost = await settledPayoutsFromNonce(db, walletId, chainNonce);
  for (const payout of lost) {
    const receipt = await client
      .getTransactionReceipt({ hash: payout.mined_tx_hash as Hex })
      .catch((error: unknown) =>
        error instanceof TransactionReceiptNotFoundError
          ? null
          : unreachable(`network ${network.name}`, error),
      );
    if (receipt) throw rewardWalletRunning(walletId);
    if (payout.status !== 'CONFIRMED')
      throw unrecoverableNonce(walletId, Number(payout.nonce), payout.status);
  }
  const now = clock.now();
  const resent = await db.transaction().execute(async (trx) => {
    await lockNextNonce(trx, walletId);
    const taken = await unsettleLostPayouts(trx, walletId, chainNonce, now);
    await reopenClaimsAfterReorg(
      trx,
      taken.map((p) => p.claim_id),
      REORG_REOPEN_REASON,
      now,
    );
    // Those taken back when the wallet was halted: sent at the next broadcast round.
    await rebroadcastPending(trx, walletId);
    await releaseWallet(trx, walletId);
    return resentAfterReorg(trx, walletId);
  });
  return {
    walletId,
    chainNonce,
    resent: resent.map((p) => ({ payoutId: p.id, claimId: p.claim_id, nonce: Number(p.nonce) })),
  };
}
