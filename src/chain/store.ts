// The SQL of the chain payout's registry: networks, chain assets, reward wallets and their nonces,
// user wallets, and a wallet's safety stop (a reorg deeper than the confirmations). The outbox's SQL
// is in payout-store.ts, the claims' in claim-store.ts, the operator's payouts list in payout-list-store.ts.
import { sql } from 'kysely';
import type { Insertable, Kysely, Selectable, Transaction, Updateable } from 'kysely';
import { isOwedClaim } from '../budgets/owed-store.ts';
import type { ChainNetworksTable, DB, RewardWalletsTable } from '../db/schema.ts';

type Db = Kysely<DB> | Transaction<DB>;

// --- Networks and assets ---

/** A network as stored; `disabled_at` is set while an operator has it disabled, `fallback_rpc_urls` are tried after rpc_url. */
export type NetworkRow = Selectable<ChainNetworksTable>;
export type NewNetwork = Insertable<ChainNetworksTable>;

export async function insertNetwork(db: Db, row: NewNetwork): Promise<void> {
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
  db: Kysely<DB>,
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

/** A reward wallet as stored; `halted_at` is set when it was stopped (a reorg lost confirmed transfers), cleared by a recovery. */
export type WalletRow = Selectable<RewardWalletsTable>;
export type NewWallet = Insertable<RewardWalletsTable>;

/** A wallet and its nonce counter, starting at the nonce the chain reports for the address. */
export async function insertWallet(db: Kysely<DB>, wallet: NewWallet, firstNonce: number): Promise<void> {
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
export async function lockNextNonce(trx: Transaction<DB>, walletId: string): Promise<number> {
  const row = await trx
    .selectFrom('reward_wallet_nonces')
    .select('next_nonce')
    .where('wallet_id', '=', walletId)
    .forUpdate()
    .executeTakeFirstOrThrow();
  return Number(row.next_nonce);
}

export async function setNextNonce(trx: Transaction<DB>, walletId: string, nextNonce: number): Promise<void> {
  await trx
    .updateTable('reward_wallet_nonces')
    .set({ next_nonce: nextNonce })
    .where('wallet_id', '=', walletId)
    .execute();
}

/**
 * Amounts still owed by a budget (src/budgets/owed-store.ts), as its wallet will pay them: owed claims
 * without a payout yet, plus outbox payouts not yet settled, of
 * nonces from `fromNonce` on (the chain's nonce: a payout mined already left the wallet's balance).
 */
export async function owedByBudget(db: Db, budgetId: string, fromNonce = 0): Promise<string> {
  const row = await sql<{ owed: string }>`
    SELECT (coalesce((SELECT sum(c.amount) FROM claims c
                      WHERE c.budget_id = ${budgetId} AND ${isOwedClaim('c')}
                        AND NOT EXISTS (SELECT 1 FROM chain_payouts p WHERE p.claim_id = c.id AND p.status <> 'REVERTED')), 0)
          + coalesce((SELECT sum(p.amount) FROM chain_payouts p
                      WHERE p.budget_id = ${budgetId} AND p.status IN ('SIGNED', 'BROADCAST') AND p.nonce >= ${fromNonce}::bigint), 0))::text AS owed`.execute(
    db,
  );
  return row.rows[0]?.owed ?? '0';
}

// --- User wallets ---

/**
 * The wallets these accounts bound for this chain: a wallet bound for another chain id is not paid
 * on this one (its owner may not control that address there, e.g. a contract wallet).
 */
export async function findUserWallets(
  db: Db,
  accountIds: string[],
  chainId: number,
): Promise<Map<string, string>> {
  if (accountIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('user_wallets')
    .select(['account_id', 'address'])
    .where('account_id', 'in', accountIds)
    .where('chain_id', '=', chainId)
    .execute();
  return new Map(rows.map((r) => [r.account_id, r.address]));
}

// --- Wallet safety: a reorg deeper than the confirmations ---

/** The highest nonce of a wallet's settled (mined) payouts (-1 when none): the chain's nonce must be past it. */
export async function highestSettledNonce(db: Db, walletId: string): Promise<number> {
  const row = await db
    .selectFrom('chain_payouts')
    .select(sql<string | null>`max(nonce)::text`.as('nonce'))
    .where('wallet_id', '=', walletId)
    .where('status', 'in', ['CONFIRMED', 'REVERTED', 'FAILED'])
    .executeTakeFirst();
  return row?.nonce === null || row?.nonce === undefined ? -1 : Number(row.nonce);
}

/** Stops a wallet (first reason kept); answers whether this call stopped it. */
export async function haltWallet(db: Db, walletId: string, reason: string, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('reward_wallets')
    .set({ halted_at: now, halted_reason: reason.slice(0, 500) })
    .where('id', '=', walletId)
    .where('halted_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** What a payout whose transfer a deep reorg removed says until it is confirmed again. */
export const REORG_LOST_NOTE =
  'a reorg deeper than the confirmations removed this transfer: it waits to be sent again as the same signed transaction (same nonce) once the wallet is recovered';

/**
 * A wallet's CONFIRMED payouts from the chain's nonce on: the chain has none of their transfers (a
 * nonce at or above the wallet's count is mined nowhere on it). Each goes back to BROADCAST with its
 * own signed transactions (same nonce: it can only ever pay its own claim); sent again once the
 * wallet is not halted. Answers those moved.
 */
export async function unsettleLostPayouts(
  db: Db,
  walletId: string,
  chainNonce: number,
  now: Date,
): Promise<Array<{ id: string; claim_id: string; nonce: number }>> {
  const moved = await db
    .updateTable('chain_payouts')
    .set({
      status: 'BROADCAST',
      mined_tx_hash: null,
      block_number: null,
      settled_at: null,
      broadcast_at: null,
      last_error: REORG_LOST_NOTE,
      updated_at: now,
    })
    .where('wallet_id', '=', walletId)
    .where('nonce', '>=', chainNonce)
    .where('status', '=', 'CONFIRMED')
    .returning(['id', 'claim_id', 'nonce'])
    .execute();
  if (moved.length > 0)
    await db
      .updateTable('chain_payout_txs')
      .set({ status: 'SIGNED' })
      .where(
        'payout_id',
        'in',
        moved.map((p) => p.id),
      )
      .execute();
  return moved.map((p) => ({ id: p.id, claim_id: p.claim_id, nonce: Number(p.nonce) }));
}

/** Wallets stopped now, with why (readiness, metrics, the console). */
export function haltedWallets(db: Db) {
  return db
    .selectFrom('reward_wallets')
    .select(['id', 'budget_id', 'network_id', 'address', 'halted_at', 'halted_reason'])
    .where('halted_at', 'is not', null)
    .orderBy('halted_at')
    .execute();
}

/** Every reward wallet's sealed key, locked FOR UPDATE (a concurrent rotation or import waits). */
export function lockWalletKeys(trx: Transaction<DB>) {
  return trx
    .selectFrom('reward_wallets')
    .select(['id', 'address', 'encrypted_key'])
    .orderBy('id')
    .forUpdate()
    .execute();
}

/** Replaces a wallet's sealed key. */
export async function setWalletKey(
  trx: Transaction<DB>,
  walletId: string,
  encryptedKey: string,
): Promise<void> {
  await trx
    .updateTable('reward_wallets')
    .set({ encrypted_key: encryptedKey })
    .where('id', '=', walletId)
    .execute();
}

/** Changes a network's settings. */
export async function setNetworkSettings(
  db: Db,
  id: string,
  changes: Updateable<ChainNetworksTable>,
): Promise<void> {
  await db.updateTable('chain_networks').set(changes).where('id', '=', id).execute();
}

/** Something that uses the network (an asset or a reward wallet), or undefined. */
export function networkInUse(db: Db, id: string) {
  return db
    .selectFrom('chain_assets')
    .select('asset_id')
    .where('network_id', '=', id)
    .union(db.selectFrom('reward_wallets').select('id as asset_id').where('network_id', '=', id))
    .executeTakeFirst();
}

export async function removeNetwork(db: Db, id: string): Promise<void> {
  await db.deleteFrom('chain_networks').where('id', '=', id).execute();
}

/** When the network's development chain was last reset. */
export function networkResetAt(db: Db, networkId: string) {
  return db.selectFrom('chain_networks').select('reset_at').where('id', '=', networkId).executeTakeFirst();
}

/** The budget's id if it exists (a budget that is not a chain budget says so). */
export function budgetExists(db: Db, budgetId: string) {
  return db.selectFrom('budgets').select('id').where('id', '=', budgetId).executeTakeFirst();
}

/** The wallet released from its halt. */
export async function releaseWallet(trx: Transaction<DB>, walletId: string): Promise<void> {
  await trx
    .updateTable('reward_wallets')
    .set({ halted_at: null, halted_reason: null })
    .where('id', '=', walletId)
    .execute();
}

/** A wallet's settled (CONFIRMED, REVERTED or FAILED) payouts from `nonce` on, by nonce. */
export function settledPayoutsFromNonce(db: Db, walletId: string, nonce: number) {
  return db
    .selectFrom('chain_payouts')
    .select(['id', 'claim_id', 'nonce', 'status', 'mined_tx_hash'])
    .where('wallet_id', '=', walletId)
    .where('nonce', '>=', nonce)
    .where('status', 'in', ['CONFIRMED', 'REVERTED', 'FAILED'])
    .orderBy('nonce')
    .execute();
}

/** The wallet's SIGNED and BROADCAST payouts, sent again at the next broadcast round. */
export async function rebroadcastPending(trx: Transaction<DB>, walletId: string): Promise<void> {
  await trx
    .updateTable('chain_payouts')
    .set({ broadcast_at: null })
    .where('wallet_id', '=', walletId)
    .where('status', 'in', ['SIGNED', 'BROADCAST'])
    .execute();
}

/** The wallet's payouts taken back after a reorg lost them (REORG_LOST_NOTE), to be sent again, by nonce. */
export function resentAfterReorg(trx: Transaction<DB>, walletId: string) {
  return trx
    .selectFrom('chain_payouts')
    .select(['id', 'claim_id', 'nonce'])
    .where('wallet_id', '=', walletId)
    .where('status', 'in', ['SIGNED', 'BROADCAST'])
    .where('last_error', '=', REORG_LOST_NOTE)
    .orderBy('nonce')
    .execute();
}
