// The SQL of the chain payout: networks, chain assets, reward wallets and their nonces, the payout
// outbox and its transactions, user wallets and SIWE challenges (tables of 0009_chain.sql).
import { sql } from 'kysely';
import type { Kysely, Transaction } from 'kysely';
import type { ChainDB, PayoutStatus } from './schema.ts';

type Db = Kysely<ChainDB> | Transaction<ChainDB>;

// --- Networks and assets ---

export interface NetworkRow {
  id: string;
  name: string;
  chain_id: number;
  rpc_url: string;
  confirmations: number;
  explorer_tx_url: string | null;
  created_at: Date;
}

export async function insertNetwork(db: Db, row: NetworkRow): Promise<void> {
  await db.insertInto('chain_networks').values(row).execute();
}

export function listNetworkRows(db: Db): Promise<NetworkRow[]> {
  return db.selectFrom('chain_networks').selectAll().orderBy('created_at').execute();
}

export function findNetwork(db: Db, id: string): Promise<NetworkRow | undefined> {
  return db.selectFrom('chain_networks').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A reward asset and its place on a chain, written together. */
export async function insertChainAsset(
  db: Kysely<ChainDB>,
  asset: {
    id: string;
    symbol: string;
    name: string;
    decimals: number | null;
    networkId: string;
    tokenAddress: string | null;
    now: Date;
  },
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('reward_assets')
      .values({
        id: asset.id,
        symbol: asset.symbol,
        name: asset.name,
        decimals: asset.decimals,
        created_at: asset.now,
        updated_at: asset.now,
      })
      .execute();
    await trx
      .insertInto('chain_assets')
      .values({
        asset_id: asset.id,
        network_id: asset.networkId,
        token_address: asset.tokenAddress,
        created_at: asset.now,
      })
      .execute();
  });
}

export interface BudgetChainRow {
  budget_id: string;
  asset_id: string;
  decimals: number | null;
  symbol: string;
  network_id: string;
  token_address: string | null;
}

/** The chain asset a budget pays, or undefined when its asset is not on a chain. */
export function findBudgetChainAsset(db: Db, budgetId: string): Promise<BudgetChainRow | undefined> {
  return db
    .selectFrom('budgets as b')
    .innerJoin('chain_assets as ca', 'ca.asset_id', 'b.asset_id')
    .innerJoin('reward_assets as a', 'a.id', 'b.asset_id')
    .select([
      'b.id as budget_id',
      'b.asset_id',
      'a.decimals',
      'a.symbol',
      'ca.network_id',
      'ca.token_address',
    ])
    .where('b.id', '=', budgetId)
    .executeTakeFirst();
}

// --- Reward wallets ---

export interface WalletRow {
  id: string;
  budget_id: string;
  network_id: string;
  address: string;
  encrypted_key: string;
  key_origin: 'CREATED' | 'IMPORTED';
  created_at: Date;
}

/** A wallet and its nonce counter, starting at the nonce the chain reports for the address. */
export async function insertWallet(
  db: Kysely<ChainDB>,
  wallet: WalletRow,
  firstNonce: number,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.insertInto('reward_wallets').values(wallet).execute();
    await trx
      .insertInto('reward_wallet_nonces')
      .values({ wallet_id: wallet.id, next_nonce: firstNonce })
      .execute();
  });
}

export function findWalletOfBudget(db: Db, budgetId: string): Promise<WalletRow | undefined> {
  return db.selectFrom('reward_wallets').selectAll().where('budget_id', '=', budgetId).executeTakeFirst();
}

export function findWallet(db: Db, id: string): Promise<WalletRow | undefined> {
  return db.selectFrom('reward_wallets').selectAll().where('id', '=', id).executeTakeFirst();
}

export function listWalletRows(db: Db): Promise<WalletRow[]> {
  return db.selectFrom('reward_wallets').selectAll().orderBy('created_at').execute();
}

/**
 * Locks the wallet's nonce row until the transaction ends and answers its next nonce: every
 * process signing for this wallet queues here, so no nonce is handed out twice.
 */
export async function lockNextNonce(trx: Transaction<ChainDB>, walletId: string): Promise<number> {
  const row = await trx
    .selectFrom('reward_wallet_nonces')
    .select('next_nonce')
    .where('wallet_id', '=', walletId)
    .forUpdate()
    .executeTakeFirstOrThrow();
  return Number(row.next_nonce);
}

export async function setNextNonce(
  trx: Transaction<ChainDB>,
  walletId: string,
  nextNonce: number,
): Promise<void> {
  await trx
    .updateTable('reward_wallet_nonces')
    .set({ next_nonce: nextNonce })
    .where('wallet_id', '=', walletId)
    .execute();
}

/** Amounts still owed by a budget: live claims not yet paid plus outbox payouts not yet settled. */
export async function owedByBudget(db: Db, budgetId: string): Promise<string> {
  const row = await sql<{ owed: string }>`
    SELECT (coalesce((SELECT sum(c.amount) FROM claims c
                      WHERE c.budget_id = ${budgetId} AND c.status IN ('RESERVED', 'REQUESTED', 'FAILED')
                        AND NOT EXISTS (SELECT 1 FROM chain_payouts p WHERE p.claim_id = c.id AND p.status <> 'REVERTED')), 0)
          + coalesce((SELECT sum(p.amount) FROM chain_payouts p
                      WHERE p.budget_id = ${budgetId} AND p.status IN ('SIGNED', 'BROADCAST')), 0))::text AS owed`.execute(
    db,
  );
  return row.rows[0]?.owed ?? '0';
}

// --- User wallets ---

export async function findUserWallets(db: Db, accountIds: string[]): Promise<Map<string, string>> {
  if (accountIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('user_wallets')
    .select(['account_id', 'address'])
    .where('account_id', 'in', accountIds)
    .execute();
  return new Map(rows.map((r) => [r.account_id, r.address]));
}

// --- The outbox ---

export interface NewPayout {
  id: string;
  claim_id: string;
  budget_id: string;
  wallet_id: string;
  account_id: string;
  nonce: number;
  to_address: string;
  amount: string;
  token_address: string | null;
  raw_tx: string;
  tx_hash: string;
  gas_limit: number;
  max_fee_per_gas: string;
  max_priority_fee_per_gas: string;
}

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

/** Amounts signed from a wallet and not yet settled, per token (native under ''). */
export async function unsettledOutflows(
  db: Db,
  walletId: string,
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

export async function insertPayouts(
  trx: Transaction<ChainDB>,
  payouts: NewPayout[],
  now: Date,
): Promise<void> {
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

/**
 * Leases the payouts due for a (re-)broadcast: never sent, or sent longer than `resendBefore`
 * ago and not yet settled. The lease is `broadcast_at = now`, taken with SKIP LOCKED so that
 * workers split the work; a lease lost in a crash simply falls due again later.
 */
export async function leaseDueBroadcasts(
  db: Kysely<ChainDB>,
  now: Date,
  resendBefore: Date,
  limit: number,
): Promise<OpenPayoutRow[]> {
  const result = await sql<OpenPayoutRow>`
    WITH due AS (
      SELECT p.id FROM chain_payouts p
      WHERE p.status IN ('SIGNED', 'BROADCAST') AND (p.broadcast_at IS NULL OR p.broadcast_at <= ${resendBefore}::timestamptz)
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
    WHERE p.status IN ('SIGNED', 'BROADCAST') AND p.broadcast_at IS NOT NULL
    ORDER BY p.wallet_id, p.nonce
    LIMIT ${limit}`.execute(db);
  return result.rows.map((r) => ({ ...r, nonce: Number(r.nonce), gas_limit: Number(r.gas_limit) }));
}

export interface Settlement {
  payoutId: string;
  status: 'CONFIRMED' | 'REVERTED';
  minedHash: string;
  blockNumber: number;
  error: string | null;
}

/**
 * Settles payouts whose mined transaction has its confirmations; answers the ids actually moved
 * (a payout another worker settled first is skipped, so its outcome is reported once).
 */
export async function settlePayouts(
  trx: Transaction<ChainDB>,
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
export async function lockPayoutForReplacement(trx: Transaction<ChainDB>, payoutId: string) {
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
  trx: Transaction<ChainDB>,
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
  return db
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
    .execute();
}

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
 * REQUESTED claims of chain assets that are due and have no live payout, of users with a bound
 * wallet: a claim of a user without one is not handed over (it waits, uncounted, until a binding).
 */
export async function dueChainClaims(db: Db, now: Date, limit: number): Promise<DueChainClaim[]> {
  const result = await sql<DueChainClaim>`
    SELECT c.id, c.budget_id, c.account_id, c.amount::text AS amount, c.attempts, c.trace_context
    FROM claims c
    JOIN chain_assets ca ON ca.asset_id = c.asset_id
    JOIN user_wallets uw ON uw.account_id = c.account_id
    WHERE c.status = 'REQUESTED' AND c.next_attempt_at <= ${now}::timestamptz
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

/** Attempts so far of claims still REQUESTED, locked for their move (inside the settling transaction). */
export async function lockRequestedClaims(
  trx: Transaction<ChainDB>,
  ids: string[],
): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const rows = await trx
    .selectFrom('claims')
    .select(['id', 'attempts'])
    .where('id', 'in', ids)
    .where('status', '=', 'REQUESTED')
    .forUpdate()
    .execute();
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
