// The SQL of claims paid on chain (the wiring to the rewards module): due claims, those already
// confirmed, and each claim's transaction for the claim read models.
import { sql } from 'kysely';
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import { groupBy } from '../domain/group-by.ts';
import { lockPartnerByPartner } from '../db/citus.ts';

type Db = Kysely<DB> | Transaction<DB>;

// --- Claims paid on chain (the wiring to the rewards module) ---

export interface DueChainClaim {
  id: string;
  budget_id: string;
  account_id: string;
  amount: string;
  attempts: number;
  /** W3C traceparent of the request that created the claim (tracing on), for the payout span's link. */
  trace_context: string | null;
}

/**
 * REQUESTED claims of chain assets that are due and have no live payout, of users with a wallet
 * bound for the asset's chain: a claim of a user without one is not handed over (it waits,
 * uncounted, until a binding), nor one of a disabled network or a halted reward wallet.
 */
export async function dueChainClaims(db: Db, now: Date, limit: number): Promise<DueChainClaim[]> {
  const result = await sql<DueChainClaim>`
    SELECT c.id, c.budget_id, c.account_id, c.amount::text AS amount, c.attempts, c.trace_context
    FROM claims c
    JOIN chain_assets ca ON ca.asset_id = c.asset_id
    JOIN chain_networks n ON n.id = ca.network_id AND n.disabled_at IS NULL
    JOIN user_wallets uw ON uw.account_id = c.account_id AND uw.chain_id = n.chain_id
    WHERE c.status = 'REQUESTED' AND c.next_attempt_at <= ${now}::timestamptz
      AND NOT EXISTS (SELECT 1 FROM reward_wallets w WHERE w.budget_id = c.budget_id AND w.halted_at IS NOT NULL)
      AND NOT EXISTS (SELECT 1 FROM chain_payouts p WHERE p.claim_id = c.id AND p.status <> 'REVERTED')
    ORDER BY c.next_attempt_at, c.id
    LIMIT ${limit}`.execute(db);
  return result.rows.map((r) => ({ ...r, attempts: Number(r.attempts) }));
}

/**
 * REQUESTED claims whose payout is CONFIRMED: normally none (the claim moves in the settling
 * transaction), but a claim another worker failed in the instant its payout was signed is caught up.
 */
export async function requestedClaimsConfirmedOnChain(db: Db, limit: number): Promise<string[]> {
  const result = await sql<{ id: string }>`
    SELECT c.id FROM claims c JOIN chain_payouts p ON p.claim_id = c.id AND p.status = 'CONFIRMED'
    WHERE c.status = 'REQUESTED' LIMIT ${limit}`.execute(db);
  return result.rows.map((r) => r.id);
}

/**
 * Attempts so far of claims still REQUESTED, locked for their move (inside the settling
 * transaction). Partner by partner, in partner order: on Citus claims are distributed on
 * partner_id and a row lock must name one shard (docs/scaling.md "On Citus"); the claims'
 * partners are read first, without a lock.
 */
export async function lockRequestedClaims(trx: Transaction<DB>, ids: string[]): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const owners = await trx
    .selectFrom('claims')
    .select(['id', 'partner_id'])
    .where('id', 'in', ids)
    .orderBy('partner_id')
    .execute();
  const idsOf = groupBy(owners, (o) => o.partner_id);
  const rows = await lockPartnerByPartner([...idsOf.keys()], ids.length, (partnerId) =>
    trx
      .selectFrom('claims')
      .select(['id', 'attempts'])
      .where('partner_id', '=', partnerId)
      .where(
        'id',
        'in',
        (idsOf.get(partnerId) ?? []).map((c) => c.id),
      )
      .where('status', '=', 'REQUESTED')
      .forUpdate()
      .execute(),
  );
  return new Map(rows.map((r) => [r.id, Number(r.attempts)]));
}

export interface ClaimChainTx {
  claim_id: string;
  tx_hash: string;
  explorer_url: string | null;
}

/**
 * For a LEFT JOIN of claim listings: each claim's live payout transaction (the mined hash once
 * CONFIRMED, else the one in force) and its link from the network's explorer URL template.
 */
export function claimChainTxs() {
  return sql<ClaimChainTx>`(
    SELECT p.claim_id, coalesce(p.mined_tx_hash, p.tx_hash) AS tx_hash,
           replace(n.explorer_tx_url, '{hash}', coalesce(p.mined_tx_hash, p.tx_hash)) AS explorer_url
    FROM chain_payouts p JOIN reward_wallets w ON w.id = p.wallet_id JOIN chain_networks n ON n.id = w.network_id
    WHERE p.status <> 'REVERTED')`;
}

/** The chain transaction of each of these claims that has one (none asked, none read). */
export async function claimTxRows(db: Db, claimIds: string[]) {
  if (claimIds.length === 0) return [];
  return db
    .selectFrom(claimChainTxs().as('tx'))
    .select(['tx.claim_id', 'tx.tx_hash', 'tx.explorer_url'])
    .where('tx.claim_id', 'in', claimIds)
    .execute();
}

/**
 * Those of these claims that are REQUESTED, of a chain asset, and whose account has bound no wallet
 * on that chain (none asked, none read).
 */
export async function claimsWaitingForWallet(db: Db, claimIds: string[]) {
  if (claimIds.length === 0) return [];
  return db
    .selectFrom('claims as c')
    .innerJoin('chain_assets as ca', 'ca.asset_id', 'c.asset_id')
    .innerJoin('chain_networks as n', 'n.id', 'ca.network_id')
    .select('c.id')
    .where('c.id', 'in', claimIds)
    .where('c.status', '=', 'REQUESTED')
    .where('c.account_id', 'is not', null)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('user_wallets as uw')
            .select('uw.account_id')
            .whereRef('uw.account_id', '=', 'c.account_id')
            .whereRef('uw.chain_id', '=', 'n.chain_id'),
        ),
      ),
    )
    .execute();
}
