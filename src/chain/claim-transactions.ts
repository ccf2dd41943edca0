// The chain transaction of each claim paid (or being paid) on a chain, for the claim read models: the
// claims capability stays unaware of chains; the routes that list claims add these two fields.
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { claimChainTxs } from './store.ts';

export interface ClaimTransaction {
  /** The transaction that paid the claim (the mined one once mined), or null when not paid on a chain. */
  txHash: string | null;
  /** The transaction on the network's explorer (its URL template), or null. */
  explorerUrl: string | null;
}

/** `items` with the chain transaction of each, in the same order. */
export async function withChainTransactions<T extends { id: string }>(
  db: Kysely<DB>,
  items: readonly T[],
): Promise<Array<T & ClaimTransaction>> {
  const ids = items.map((item) => item.id);
  const rows =
    ids.length === 0
      ? []
      : await db
          .selectFrom(claimChainTxs().as('tx'))
          .select(['tx.claim_id', 'tx.tx_hash', 'tx.explorer_url'])
          .where('tx.claim_id', 'in', ids)
          .execute();
  const byClaim = new Map(rows.map((row) => [row.claim_id, row]));
  return items.map((item) => {
    const tx = byClaim.get(item.id);
    return { ...item, txHash: tx?.tx_hash ?? null, explorerUrl: tx?.explorer_url ?? null };
  });
}
