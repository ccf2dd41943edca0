// The SQL of the chain payout's outbox: payouts and their signed transactions, broadcast leases,
// settlement and same-nonce replacements (tables of 0009_chain.sql).
import { sql } from 'kysely';
import type { Insertable, Kysely, Transaction } from 'kysely';
import type { ChainPayoutsTable, DB, PayoutStatus } from '../db/schema.ts';

type Db = Kysely<DB> | Transaction<DB>;

// --- The outbox ---

/**
 * A payout as signed, before it is written: the columns the signer fills in (status and the
 * timestamps are set by insertPayouts; the counters and the outcome by the database and later steps).
 */
export type NewPayout = Required<
  Pick<
    Insertable<ChainPayoutsTable>,
    | 'id'
    | 'claim_id'
    | 'budget_id'
    | 'wallet_id'
    | 'account_id'
    | 'nonce'
    | 'to_address'
    | 'amount'
    | 'token_address'
    | 'raw_tx'
    | 'tx_hash'
    | 'gas_limit'
    | 'max_fee_per_gas'
    | 'max_priority_fee_per_gas'
  >
>;

/** Claims of this list that already have a live (not REVERTED) payout. */
export async function claimsWithLivePayout(db: Db, claimIds: string[]): Promise<Set<string>> {
  if (claimIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('chain_payouts')
    .select('claim_id')
    .where('claim_id', 'in', claimIds)
    .where('status', '<>', 'REVERTED')
    .execute();
  return new Set(rows.map((r) => r.claim_id));
}

/**
 * Amounts signed from a wallet and not yet settled, per token (native under ''), of nonces from
 * `fromNonce` on: the caller passes the chain's nonce, so a payout already mined (its amount and gas
 * already gone from the balance read at the same head) is not counted a second time.
 */
export async function unsettledOutflows(
  db: Db,
  walletId: string,
  fromNonce = 0,
): Promise<{ tokens: Map<string, bigint>; gasWei: bigint; count: number }> {
  const rows = await db
    .selectFrom('chain_payouts')
    .select([
      'token_address',
      sql<string>`sum(amount)::text`.as('amount'),
      sql<string>`sum(gas_limit * max_fee_per_gas)::text`.as('gas'),
      sql<number>`count(*)::int`.as('count'),
    ])
    .where('wallet_id', '=', walletId)
    .where('status', 'in', ['SIGNED', 'BROADCAST'])
    .where('nonce', '>=', fromNonce)
    .groupBy('token_address')
    .execute();
  const tokens = new Map<string, bigint>();
  let gasWei = 0n;
  let count = 0;
  for (const row of rows) {
    tokens.set(row.token_address ?? '', BigInt(row.amount));
    gasWei += BigInt(row.gas);
    count += row.count;
  }
  return { tokens, gasWei, count };
}

export async function insertPayouts(trx: Transaction<DB>, payouts: NewPayout[], now: Date): Promise<void> {
  if (payouts.length === 0) return;
  // Chunks keep each statement under PostgreSQL's 65535 parameters.
  for (let i = 0; i < payouts.length; i += 500) {
    const chunk = payouts.slice(i, i + 500);
    await trx
      .insertInto('chain_payouts')
      .values(chunk.map((p) => ({ ...p, status: 'SIGNED' as const, signed_at: now, updated_at: now })))
      .execute();
    await trx
      .insertInto('chain_payout_txs')
      .values(
        chunk.map((p) => ({
          tx_hash: p.tx_hash,
          payout_id: p.id,
          raw_tx: p.raw_tx,
          max_fee_per_gas: p.max_fee_per_gas,
          max_priority_fee_per_gas: p.max_priority_fee_per_gas,
          status: 'SIGNED' as const,
          signed_at: now,
        })),
      )
      .execute();
  }
}

export interface OpenPayoutRow {
  id: string;
  claim_id: string;
  wallet_id: string;
  network_id: string;
  nonce: number;
  raw_tx: string;
  tx_hash: string;
  status: PayoutStatus;
  to_address: string;
  amount: string;
  token_address: string | null;
  gas_limit: number;
  max_fee_per_gas: string;
  max_priority_fee_per_gas: string;
  broadcast_at: Date | null;
  signed_at: Date;
}

/** Payouts (alias p) of a wallet that is not halted, on a network that is not disabled. */
const sendable = sql<boolean>`EXISTS (SELECT 1 FROM reward_wallets hw JOIN chain_networks hn ON hn.id = hw.network_id
  WHERE hw.id = p.wallet_id AND hw.halted_at IS NULL AND hn.disabled_at IS NULL)`;

/**
 * Leases the payouts due for a (re-)broadcast: never sent, or sent longer than `resendBefore`
 * ago and not yet settled. The lease is `broadcast_at = now`, taken with SKIP LOCKED so that
 * workers split the work; a lease lost in a crash simply falls due again later.
 */
export async function leaseDueBroadcasts(
  db: Kysely<DB>,
  now: Date,
  resendBefore: Date,
  limit: number,
): Promise<OpenPayoutRow[]> {
  const result = await sql<OpenPayoutRow>`
    WITH due AS (
      SELECT p.id FROM chain_payouts p
      WHERE p.status IN ('SIGNED', 'BROADCAST') AND (p.broadcast_at IS NULL OR p.broadcast_at <= ${resendBefore}::timestamptz)
        AND ${sendable}
      ORDER BY p.wallet_id, p.nonce
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    )
    UPDATE chain_payouts p SET broadcast_at = ${now}::timestamptz, updated_at = ${now}::timestamptz
    FROM due, reward_wallets w
    WHERE p.id = due.id AND w.id = p.wallet_id
    RETURNING p.id, p.claim_id, p.wallet_id, w.network_id, p.nonce, p.raw_tx, p.tx_hash, p.status, p.to_address, p.amount::text AS amount,
              p.token_address, p.gas_limit, p.max_fee_per_gas::text AS max_fee_per_gas, p.max_priority_fee_per_gas::text AS max_priority_fee_per_gas,
              p.broadcast_at, p.signed_at`.execute(db);
  return result.rows
    .map((r) => ({ ...r, nonce: Number(r.nonce), gas_limit: Number(r.gas_limit) }))
    .sort((a, b) => a.wallet_id.localeCompare(b.wallet_id) || a.nonce - b.nonce);
}

/** Records the answer of a broadcast: accepted (BROADCAST) or the node's refusal. */
export async function recordBroadcasts(
  db: Db,
  accepted: string[],
  refused: Array<{ id: string; error: string }>,
  now: Date,
): Promise<void> {
  if (accepted.length > 0) {
    await db
      .updateTable('chain_payouts')
      .set((eb) => ({
        status: sql<PayoutStatus>`CASE WHEN status = 'SIGNED' THEN 'BROADCAST' ELSE status END`,
        broadcasts: eb('broadcasts', '+', 1),
        last_error: null,
        updated_at: now,
      }))
      .where('id', 'in', accepted)
      .where('status', 'in', ['SIGNED', 'BROADCAST'])
      .execute();
  }
  for (const { id, error } of refused) {
    await db
      .updateTable('chain_payouts')
      .set({ last_error: error.slice(0, 500), updated_at: now })
      .where('id', '=', id)
      .execute();
  }
}

/**
 * Unsettled payouts that were sent at least once, oldest nonce first, for the confirm step; a
 * refused broadcast counts too, since a node may refuse a transaction it has mined already.
 */
export async function listBroadcastPayouts(
  db: Db,
  limit: number,
): Promise<Array<OpenPayoutRow & { hashes: string[]; current_signed_at: Date }>> {
  const result = await sql<OpenPayoutRow & { hashes: string[]; current_signed_at: Date }>`
    SELECT p.id, p.claim_id, p.wallet_id, w.network_id, p.nonce, p.raw_tx, p.tx_hash, p.status, p.to_address, p.amount::text AS amount,
           p.token_address, p.gas_limit, p.max_fee_per_gas::text AS max_fee_per_gas, p.max_priority_fee_per_gas::text AS max_priority_fee_per_gas,
           p.broadcast_at, p.signed_at,
           (SELECT array_agg(t.tx_hash ORDER BY t.signed_at) FROM chain_payout_txs t WHERE t.payout_id = p.id) AS hashes,
           (SELECT max(t.signed_at) FROM chain_payout_txs t WHERE t.payout_id = p.id) AS current_signed_at
    FROM chain_payouts p JOIN reward_wallets w ON w.id = p.wallet_id
    WHERE p.status IN ('SIGNED', 'BROADCAST') AND p.broadcast_at IS NOT NULL AND ${sendable}
    ORDER BY p.wallet_id, p.nonce
    LIMIT ${limit}`.execute(db);
  return result.rows.map((r) => ({ ...r, nonce: Number(r.nonce), gas_limit: Number(r.gas_limit) }));
}

export interface Settlement {
  payoutId: string;
  status: 'CONFIRMED' | 'REVERTED' | 'FAILED';
  minedHash: string;
  blockNumber: number;
  error: string | null;
}

/**
 * Settles payouts whose mined transaction has its confirmations; answers the ids actually moved
 * (a payout another worker settled first is skipped, so its outcome is reported once).
 */
export async function settlePayouts(
  trx: Transaction<DB>,
  settlements: Settlement[],
  now: Date,
): Promise<Set<string>> {
  if (settlements.length === 0) return new Set();
  // Two statements for the whole batch; the status guard skips a payout another worker settled.
  const column = <T>(pick: (s: Settlement) => T) => settlements.map(pick);
  const moved = await sql<{ id: string; mined_tx_hash: string }>`
    UPDATE chain_payouts p
    SET status = s.status, mined_tx_hash = s.hash, block_number = s.block, last_error = s.error, settled_at = ${now}::timestamptz, updated_at = ${now}::timestamptz
    FROM unnest(${column((s) => s.payoutId)}::text[], ${column((s) => s.status)}::text[], ${column((s) => s.minedHash)}::text[],
                ${column((s) => s.blockNumber)}::bigint[], ${column((s) => s.error)}::text[]) AS s(id, status, hash, block, error)
    WHERE p.id = s.id AND p.status IN ('SIGNED', 'BROADCAST')
    RETURNING p.id, p.mined_tx_hash`.execute(trx);
  const ids = moved.rows.map((r) => r.id);
  if (ids.length > 0) {
    await sql`
      UPDATE chain_payout_txs t SET status = CASE WHEN t.tx_hash = p.mined_tx_hash THEN 'MINED' ELSE 'REPLACED' END
      FROM chain_payouts p WHERE p.id = t.payout_id AND p.id = ANY(${ids}::text[])`.execute(trx);
  }
  return new Set(ids);
}

/** Locks one broadcast payout for a same-nonce replacement, unless another worker holds it. */
export async function lockPayoutForReplacement(trx: Transaction<DB>, payoutId: string) {
  return trx
    .selectFrom('chain_payouts')
    .selectAll()
    .where('id', '=', payoutId)
    .where('status', '=', 'BROADCAST')
    .forUpdate()
    .skipLocked()
    .executeTakeFirst();
}

export async function recordReplacement(
  trx: Transaction<DB>,
  payoutId: string,
  tx: { rawTx: string; hash: string; maxFeePerGas: string; maxPriorityFeePerGas: string },
  now: Date,
): Promise<void> {
  await trx
    .insertInto('chain_payout_txs')
    .values({
      tx_hash: tx.hash,
      payout_id: payoutId,
      raw_tx: tx.rawTx,
      max_fee_per_gas: tx.maxFeePerGas,
      max_priority_fee_per_gas: tx.maxPriorityFeePerGas,
      status: 'SIGNED',
      signed_at: now,
    })
    .execute();
  await trx
    .updateTable('chain_payouts')
    .set((eb) => ({
      raw_tx: tx.rawTx,
      tx_hash: tx.hash,
      max_fee_per_gas: tx.maxFeePerGas,
      max_priority_fee_per_gas: tx.maxPriorityFeePerGas,
      replacements: eb('replacements', '+', 1),
      // Due for a broadcast at once.
      broadcast_at: null,
      updated_at: now,
    }))
    .where('id', '=', payoutId)
    .execute();
}

export interface PayoutView {
  id: string;
  claim_id: string;
  status: PayoutStatus;
  nonce: number;
  to_address: string;
  amount: string;
  token_address: string | null;
  tx_hash: string;
  mined_tx_hash: string | null;
  last_error: string | null;
  wallet_id: string;
}

export async function listPayoutsOfClaims(db: Db, claimIds: string[]): Promise<PayoutView[]> {
  if (claimIds.length === 0) return [];
  const rows = await db
    .selectFrom('chain_payouts')
    .select([
      'id',
      'claim_id',
      'status',
      'nonce',
      'to_address',
      sql<string>`amount::text`.as('amount'),
      'token_address',
      'tx_hash',
      'mined_tx_hash',
      'last_error',
      'wallet_id',
    ])
    .where('claim_id', 'in', claimIds)
    .orderBy('signed_at')
    .execute();
  return rows.map((r) => ({ ...r, nonce: Number(r.nonce) }));
}

/** CONFIRMED payouts of a wallet with the hash that was mined, for reconciliation. */
export function confirmedPayoutsOfWallet(db: Db, walletId: string) {
  return (
    db
      .selectFrom('chain_payouts')
      .select([
        'id',
        'claim_id',
        'to_address',
        sql<string>`amount::text`.as('amount'),
        'token_address',
        'mined_tx_hash',
        'block_number',
        'nonce',
      ])
      .where('wallet_id', '=', walletId)
      .where('status', '=', 'CONFIRMED')
      // Confirmed on a development chain since reset: history only, not a missing transfer.
      .where('lost_with_chain_at', 'is', null)
      .execute()
  );
}

/** How many payouts a wallet has signed, in all (each took one nonce). */
export function payoutCountOfWallet(db: Db, walletId: string) {
  return db
    .selectFrom('chain_payouts')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('wallet_id', '=', walletId)
    .executeTakeFirstOrThrow();
}
