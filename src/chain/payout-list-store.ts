// The SQL of the operator's payouts list (the console's chain page): newest first, with every
// transaction signed for each payout.
import { sql } from 'kysely';
import type { Kysely, Transaction } from 'kysely';
import type { DB, PayoutStatus } from '../db/schema.ts';

type Db = Kysely<DB> | Transaction<DB>;

// --- The operator's payouts list (the console's chain page) ---

export interface PayoutListRow {
  id: string;
  claim_id: string;
  budget_id: string;
  wallet_id: string;
  network_id: string;
  network_name: string;
  status: PayoutStatus;
  nonce: number;
  to_address: string;
  amount: string;
  token_address: string | null;
  tx_hash: string;
  mined_tx_hash: string | null;
  block_number: number | null;
  broadcasts: number;
  replacements: number;
  last_error: string | null;
  signed_at: Date;
  settled_at: Date | null;
  explorer_tx_url: string | null;
  txs: Array<{ tx_hash: string; status: string; signed_at: string }>;
}

/** Payouts newest first, filtered; `before` is the last row's (signed_at, id) of the previous page. */
export async function listPayouts(
  db: Db,
  filter: {
    status?: PayoutStatus | undefined;
    networkId?: string | undefined;
    budgetId?: string | undefined;
    claimId?: string | undefined;
    before?: { signedAt: Date; id: string } | undefined;
    limit: number;
  },
): Promise<PayoutListRow[]> {
  const result = await sql<PayoutListRow>`
    SELECT p.id, p.claim_id, p.budget_id, p.wallet_id, w.network_id, n.name AS network_name, p.status, p.nonce,
           p.to_address, p.amount::text AS amount, p.token_address, p.tx_hash, p.mined_tx_hash, p.block_number,
           p.broadcasts, p.replacements, p.last_error, p.signed_at, p.settled_at, n.explorer_tx_url,
           coalesce((SELECT json_agg(json_build_object('tx_hash', t.tx_hash, 'status', t.status, 'signed_at', t.signed_at) ORDER BY t.signed_at)
                     FROM chain_payout_txs t WHERE t.payout_id = p.id), '[]'::json) AS txs
    FROM chain_payouts p JOIN reward_wallets w ON w.id = p.wallet_id JOIN chain_networks n ON n.id = w.network_id
    WHERE (${filter.status ?? null}::text IS NULL OR p.status = ${filter.status ?? null}::text)
      AND (${filter.networkId ?? null}::text IS NULL OR w.network_id = ${filter.networkId ?? null}::text)
      AND (${filter.budgetId ?? null}::text IS NULL OR p.budget_id = ${filter.budgetId ?? null}::text)
      AND (${filter.claimId ?? null}::text IS NULL OR p.claim_id = ${filter.claimId ?? null}::text)
      AND (${filter.before?.signedAt ?? null}::timestamptz IS NULL
           OR (p.signed_at, p.id) < (${filter.before?.signedAt ?? null}::timestamptz, ${filter.before?.id ?? null}::text))
    ORDER BY p.signed_at DESC, p.id DESC
    LIMIT ${filter.limit}`.execute(db);
  return result.rows.map((r) => ({
    ...r,
    nonce: Number(r.nonce),
    block_number: r.block_number === null ? null : Number(r.block_number),
    txs: typeof r.txs === 'string' ? (JSON.parse(r.txs) as PayoutListRow['txs']) : r.txs,
  }));
}
