// Reconciliation: each reward wallet's transfers on chain (token Transfer logs from the wallet, or
// the outbox's native transactions) against its CONFIRMED payouts; every difference is reported.
import { BaseError, getAddress, parseAbiItem } from 'viem';
import type { Address, Hex } from 'viem';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { chainRpcUnavailable } from '../error-factories.ts';
import { rpcClient, rpcFailure } from './rpc.ts';
import type { BudgetChainRow, NetworkRow, WalletRow } from './store.ts';
import { confirmedPayoutsOfWallet, payoutCountOfWallet } from './payout-store.ts';
import { findBudgetChainAsset, findNetwork, listWalletRows } from './store.ts';

const transferEvent = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');

export interface ReconcileDifference {
  /** NETWORK_UNREACHABLE: the wallet's network did not answer, so it was not reconciled (the others were). */
  kind:
    | 'MISSING_ON_CHAIN'
    | 'NOT_IN_OUTBOX'
    | 'AMOUNT_OR_RECIPIENT_DIFFERS'
    | 'EXTRA_TRANSACTIONS'
    | 'NETWORK_UNREACHABLE';
  txHash: string | null;
  claimId: string | null;
  detail: string;
}

export interface WalletReconciliation {
  walletId: string;
  budgetId: string;
  address: string;
  confirmedPayouts: number;
  transfersOnChain: number;
  differences: ReconcileDifference[];
}

/**
 * Every wallet, network by network: a network that does not answer is reported for its wallets as
 * NETWORK_UNREACHABLE (CHAIN_RPC_UNAVAILABLE, with how it failed) and the other networks are still
 * reconciled, instead of the whole report failing.
 */
export async function reconcileWallets(db: Kysely<DB>): Promise<WalletReconciliation[]> {
  const report: WalletReconciliation[] = [];
  for (const wallet of await listWalletRows(db)) {
    const network = await findNetwork(db, wallet.network_id);
    const asset = await findBudgetChainAsset(db, wallet.budget_id);
    if (!network || !asset) continue;
    try {
      report.push(await reconcileWallet(db, wallet, network, asset));
    } catch (error) {
      if (!(error instanceof BaseError)) throw error;
      report.push({
        walletId: wallet.id,
        budgetId: wallet.budget_id,
        address: getAddress(wallet.address),
        confirmedPayouts: 0,
        transfersOnChain: 0,
        differences: [
          {
            kind: 'NETWORK_UNREACHABLE',
            txHash: null,
            claimId: null,
            detail: chainRpcUnavailable(`network ${network.name} (${network.id})`, {
              cause: new Error(rpcFailure(error)),
            }).message,
          },
        ],
      });
    }
  }
  return report;
}

async function reconcileWallet(
  db: Kysely<DB>,
  wallet: WalletRow,
  network: NetworkRow,
  asset: BudgetChainRow,
): Promise<WalletReconciliation> {
  {
    const client = rpcClient(network);
    const payouts = await confirmedPayoutsOfWallet(db, wallet.id);
    const differences: ReconcileDifference[] = [];
    const onChain = new Map<string, { to: string; value: bigint }>();
    if (asset.token_address) {
      const logs = await client.getLogs({
        address: asset.token_address as Address,
        event: transferEvent,
        args: { from: wallet.address as Address },
        fromBlock: 0n,
        toBlock: 'latest',
      });
      for (const log of logs)
        onChain.set(log.transactionHash, {
          to: (log.args.to ?? '').toLowerCase(),
          value: log.args.value ?? 0n,
        });
    } else {
      // Native coin transfers leave no log: read the outbox's own transactions, and compare the
      // wallet's transaction count with the nonces it handed out to see any it did not send.
      for (const payout of payouts) {
        const tx = await client.getTransaction({ hash: payout.mined_tx_hash as Hex }).catch(() => null);
        const receipt = tx ? await client.getTransactionReceipt({ hash: tx.hash }).catch(() => null) : null;
        if (tx && receipt?.status === 'success')
          onChain.set(tx.hash, { to: (tx.to ?? '').toLowerCase(), value: tx.value });
      }
    }
    const transfersOnChain = onChain.size;
    for (const payout of payouts) {
      const hash = payout.mined_tx_hash ?? '';
      const seen = onChain.get(hash);
      if (!seen)
        differences.push({
          kind: 'MISSING_ON_CHAIN',
          txHash: hash,
          claimId: payout.claim_id,
          detail: `payout of claim ${payout.claim_id} is CONFIRMED but its transfer is not on chain`,
        });
      else if (seen.to !== payout.to_address || seen.value !== BigInt(payout.amount)) {
        differences.push({
          kind: 'AMOUNT_OR_RECIPIENT_DIFFERS',
          txHash: hash,
          claimId: payout.claim_id,
          detail: `outbox: ${payout.amount} to ${payout.to_address}; chain: ${seen.value} to ${seen.to}`,
        });
      }
      onChain.delete(hash);
    }
    for (const [hash, seen] of onChain) {
      differences.push({
        kind: 'NOT_IN_OUTBOX',
        txHash: hash,
        claimId: null,
        detail: `${seen.value} to ${getAddress(seen.to)} sent from the wallet has no CONFIRMED payout`,
      });
    }
    const sent = await client.getTransactionCount({ address: wallet.address as Address });
    const handedOut = await payoutCountOfWallet(db, wallet.id);
    if (sent > Number(handedOut.n)) {
      differences.push({
        kind: 'EXTRA_TRANSACTIONS',
        txHash: null,
        claimId: null,
        detail: `the wallet sent ${sent} transactions; the outbox signed ${handedOut.n}`,
      });
    }
    return {
      walletId: wallet.id,
      budgetId: wallet.budget_id,
      address: getAddress(wallet.address),
      confirmedPayouts: payouts.length,
      transfersOnChain,
      differences,
    };
  }
}
