// The chain transaction of each claim paid (or being paid) on a chain, for the claim read models: the
// claims capability stays unaware of chains; the routes that list claims add these fields (and
// whether the claim waits for its user to bind a wallet).
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { claimsWaitingForWallet, claimTxRows } from './claim-store.ts';

export interface ClaimTransaction {
  /** The transaction that paid the claim (the mined one once mined), or null when not paid on a chain. */
  txHash: string | null;
  /** The transaction on the network's explorer (its URL template), or null. */
  explorerUrl: string | null;
  /**
   * A REQUESTED claim of a chain asset whose account has bound no wallet on that chain: the payout
   * waits for the user to bind one (#29 "the claim that waits").
   */
  waitsForWallet: boolean;
}

/** `items` with the chain transaction of each, in the same order. */
export async function withChainTransactions<T extends { id: string }>(
  db: Kysely<DB>,
  items: readonly T[],
): Promise<Array<T & ClaimTransaction>> {
  const ids = items.map((item) => item.id);
  const rows = await claimTxRows(db, ids);
  const byClaim = new Map(rows.map((row) => [row.claim_id, row]));
  const waiting = await claimsWaitingForWallet(db, ids);
  const waits = new Set(waiting.map((row) => row.id));
  return items.map((item) => {
    const tx = byClaim.get(item.id);
    return {
      ...item,
      txHash: tx?.tx_hash ?? null,
      explorerUrl: tx?.explorer_url ?? null,
      waitsForWallet: waits.has(item.id),
    };
  });
}
