// The operator's view of the outbox: payouts newest first with every transaction signed for each
// (the console's chain payouts page).
import { getAddress } from 'viem';
import type { Kysely } from 'kysely';
import type { DB, PayoutStatus } from '../db/schema.ts';
import { listPayouts } from './payout-list-store.ts';

export interface ChainPayoutView {
  id: string;
  claimId: string;
  budgetId: string;
  walletId: string;
  networkId: string;
  networkName: string;
  status: PayoutStatus;
  nonce: number;
  to: string;
  amount: string;
  tokenAddress: string | null;
  /** The transaction in force (the mined one once settled). */
  txHash: string;
  explorerUrl: string | null;
  blockNumber: number | null;
  /** Times a node accepted it (first send and re-sends). */
  broadcasts: number;
  replacements: number;
  lastError: string | null;
  signedAt: string;
  settledAt: string | null;
  /** Every transaction signed for it, oldest first: the first and each same-nonce replacement. */
  transactions: Array<{ txHash: string; status: string; signedAt: string; explorerUrl: string | null }>;
}

/** The outbox's payouts, newest first, for the operator (the console's chain payouts page). */
export async function listChainPayouts(
  db: Kysely<DB>,
  query: {
    status?: PayoutStatus;
    networkId?: string;
    budgetId?: string;
    claimId?: string;
    cursor?: string;
    limit?: number;
  },
): Promise<{ items: ChainPayoutView[]; nextCursor: string | null }> {
  const limit = query.limit ?? 50;
  let before: { signedAt: Date; id: string } | undefined;
  if (query.cursor) {
    const [at, id] = Buffer.from(query.cursor, 'base64url').toString('utf8').split('|');
    const signedAt = new Date(at ?? '');
    if (id && !Number.isNaN(signedAt.getTime())) before = { signedAt, id };
  }
  const rows = await listPayouts(db, { ...query, before, limit: limit + 1 });
  const link = (template: string | null, hash: string) =>
    template ? template.replace('{hash}', hash) : null;
  const items = rows.slice(0, limit).map((r): ChainPayoutView => {
    const hash = r.mined_tx_hash ?? r.tx_hash;
    return {
      id: r.id,
      claimId: r.claim_id,
      budgetId: r.budget_id,
      walletId: r.wallet_id,
      networkId: r.network_id,
      networkName: r.network_name,
      status: r.status,
      nonce: r.nonce,
      to: getAddress(r.to_address),
      amount: r.amount,
      tokenAddress: r.token_address ? getAddress(r.token_address) : null,
      txHash: hash,
      explorerUrl: link(r.explorer_tx_url, hash),
      blockNumber: r.block_number,
      broadcasts: Number(r.broadcasts),
      replacements: Number(r.replacements),
      lastError: r.last_error,
      signedAt: new Date(r.signed_at).toISOString(),
      settledAt: r.settled_at ? new Date(r.settled_at).toISOString() : null,
      transactions: r.txs.map((t) => ({
        txHash: t.tx_hash,
        status: t.status,
        signedAt: new Date(t.signed_at).toISOString(),
        explorerUrl: link(r.explorer_tx_url, t.tx_hash),
      })),
    };
  });
  const last = items[items.length - 1];
  return {
    items,
    nextCursor:
      rows.length > limit && last ? Buffer.from(`${last.signedAt}|${last.id}`).toString('base64url') : null,
  };
}
