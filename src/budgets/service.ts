// Reward assets and budgets (operator CRUD, top-ups). What a budget pays out is taken by the
// reservation engine (reservations.ts).
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import { AmountError, formatAmount, parseAmount } from '../domain/amounts.ts';
import { splitOverStripes } from '../domain/stripes.ts';
import {
  budgetNotFound,
  decimalsAlreadySet,
  decimalsNotSet,
  invalidAmount,
  rewardAssetNotFound,
} from '../error-factories.ts';
import { newId } from '../domain/ids.ts';
import {
  addToBudgetStripes,
  insertBudget,
  insertBudgetStripes,
  insertRewardAsset,
  lockAssetOfBudget,
  lockBudgetStripes,
  raiseBudgetTotal,
  selectAssetRow,
  selectAssetRows,
  selectBudget,
  selectBudgetRow,
  selectBudgetRows,
  selectRewardAsset,
  updateRewardAsset,
} from './store.ts';
import type { BudgetRow } from './store.ts';

export type BudgetType = 'FIXED' | 'LUCKY_DRAW';
export const DEFAULT_STRIPES = 16;

export function amountOf(text: string, decimals: number, field: string): bigint {
  try {
    return parseAmount(text, decimals);
  } catch (error) {
    if (error instanceof AmountError) throw invalidAmount(field, error.message, { cause: error });
    throw error;
  }
}

// --- Assets ---

/** Where an asset is paid on a chain (chain_assets, chain_networks); null for a ledger-only asset. */
export interface AssetChainView {
  networkId: string;
  networkName: string;
  chainId: number;
  /** The token contract; null for the network's native coin. */
  tokenAddress: string | null;
  /** The token's page on the network's explorer, when the network has one (its tx link ends in /tx/{hash}). */
  explorerUrl: string | null;
}

export interface AssetView {
  id: string;
  type: 'FT';
  symbol: string;
  name: string;
  decimals: number | null;
  createdAt: string;
  chain: AssetChainView | null;
}

interface AssetRow {
  id: string;
  type: 'FT';
  symbol: string;
  name: string;
  decimals: number | null;
  created_at: Date;
  network_id: string | null;
  network_name: string | null;
  chain_id: number | null;
  token_address: string | null;
  explorer_tx_url: string | null;
}

// Explorers (Etherscan, Kaiascan, Blockscout) show a token at /token/<address> beside /tx/<hash>.
function tokenPage(explorerTxUrl: string | null, token: string | null): string | null {
  if (!explorerTxUrl || !token || !explorerTxUrl.endsWith('/tx/{hash}')) return null;
  return `${explorerTxUrl.slice(0, -'/tx/{hash}'.length)}/token/${token}`;
}

function assetView(row: AssetRow): AssetView {
  return {
    id: row.id,
    type: row.type,
    symbol: row.symbol,
    name: row.name,
    decimals: row.decimals,
    createdAt: row.created_at.toISOString(),
    chain:
      row.network_id === null
        ? null
        : {
            networkId: row.network_id,
            networkName: row.network_name ?? '',
            chainId: row.chain_id ?? 0,
            tokenAddress: row.token_address,
            explorerUrl: tokenPage(row.explorer_tx_url, row.token_address),
          },
  };
}

// A new asset is not on a chain: the chain page's "add a token" creates those (createChainAsset).
const NOT_ON_CHAIN = {
  network_id: null,
  network_name: null,
  chain_id: null,
  token_address: null,
  explorer_tx_url: null,
} as const;

export async function createAsset(
  db: Kysely<DB>,
  clock: Clock,
  input: { symbol: string; name: string; decimals?: number | null },
): Promise<AssetView> {
  const now = clock.now();
  const row = await insertRewardAsset(db, {
    id: newId('ast'),
    symbol: input.symbol,
    name: input.name,
    decimals: input.decimals ?? null,
    created_at: now,
    updated_at: now,
  });
  return assetView({ ...row, ...NOT_ON_CHAIN });
}

export async function listAssets(db: Kysely<DB>): Promise<AssetView[]> {
  return (await selectAssetRows(db)).map(assetView);
}

async function findAsset(db: Kysely<DB>, id: string) {
  const row = await selectRewardAsset(db, id);
  if (!row) throw rewardAssetNotFound(id);
  return row;
}

export async function getAsset(db: Kysely<DB>, id: string): Promise<AssetView> {
  const row = await selectAssetRow(db, id);
  if (!row) throw rewardAssetNotFound(id);
  return assetView(row);
}

/** Decimals may be set once: after that, every stored amount depends on them. */
export async function updateAsset(
  db: Kysely<DB>,
  clock: Clock,
  id: string,
  input: { name?: string; decimals?: number },
): Promise<AssetView> {
  const asset = await findAsset(db, id);
  if (input.decimals !== undefined && asset.decimals !== null && asset.decimals !== input.decimals) {
    throw decimalsAlreadySet(id, asset.decimals);
  }
  await updateRewardAsset(db, id, {
    ...(input.name !== undefined && { name: input.name }),
    ...(input.decimals !== undefined && { decimals: input.decimals }),
    updated_at: clock.now(),
  });
  return getAsset(db, id);
}

/** The asset's decimals, or 1402 when they are not set (such an asset cannot back a reward). */
export async function decimalsOf(db: Kysely<DB>, assetId: string): Promise<number> {
  const asset = await findAsset(db, assetId);
  if (asset.decimals === null) throw decimalsNotSet(assetId);
  return asset.decimals;
}

// --- Budgets ---

export interface BudgetView {
  id: string;
  type: BudgetType;
  name: string;
  assetId: string;
  assetSymbol: string;
  decimals: number;
  total: string;
  remaining: string;
  reserved: string;
  paid: string;
  rejected: number;
  createdAt: string;
}

export async function createBudget(
  db: Kysely<DB>,
  clock: Clock,
  input: { type: BudgetType; assetId: string; name: string; total: string; stripes?: number },
): Promise<BudgetView> {
  const decimals = await decimalsOf(db, input.assetId);
  const total = amountOf(input.total, decimals, 'total');
  const stripes = input.stripes ?? DEFAULT_STRIPES;
  const id = newId('bdg');
  const now = clock.now();
  await db.transaction().execute(async (trx) => {
    await insertBudget(trx, {
      id,
      type: input.type,
      asset_id: input.assetId,
      name: input.name,
      total,
      stripes,
      created_at: now,
      updated_at: now,
    });
    await insertBudgetStripes(
      trx,
      splitOverStripes(total, stripes).map((remaining, stripe) => ({ budget_id: id, stripe, remaining })),
    );
  });
  return getBudget(db, id);
}

export async function topUpBudget(
  db: Kysely<DB>,
  clock: Clock,
  id: string,
  amountText: string,
): Promise<BudgetView> {
  const budget = await findBudget(db, id);
  const amount = amountOf(amountText, await decimalsOf(db, budget.asset_id), 'amount');
  // The locks are taken in the order every completion takes them, so that a top-up never holds one
  // lock while it waits for another out of order (issue #28: it used to lock the budget row FOR
  // UPDATE, which a batch's claims need in KEY SHARE for their foreign key, and then wait for a
  // stripe that batch held: "deadlock detected"). First the budget's stripes, in stripe order, the
  // order every reservation waits in (so concurrent top-ups of one budget queue there and cannot
  // together pass numeric(78,0)); then the budget row is updated (FOR NO KEY UPDATE, which a claim's
  // foreign key check does not wait for, and which only a top-up takes); then the stripes.
  // Separate statements: one with the stripe locks in a CTE loses its columns between Citus's steps
  // ("PGCOPY", docs/scaling.md "On Citus"), as releaseMany's did. On Citus the asset row is locked
  // before the budget row: Citus serializes writes of a reference table by a lock on its shard and
  // on the shards of the reference tables it points at; a claim's insert takes them in shard order
  // (reward_assets', then budgets'), while an UPDATE of budgets takes budgets' first, then
  // reward_assets': top-ups deadlocked with completions until the asset's lock came first.
  const shares = splitOverStripes(amount, budget.stripes);
  const added = await db.transaction().execute(async (trx) => {
    await lockBudgetStripes(trx, id);
    await lockAssetOfBudget(trx, budget.asset_id);
    if (!(await raiseBudgetTotal(trx, id, amount, clock.now()))) return false;
    await addToBudgetStripes(trx, id, shares);
    return true;
  });
  if (!added) {
    throw invalidAmount('amount', 'the total would exceed the largest amount a budget holds (numeric(78,0))');
  }
  return getBudget(db, id);
}

export async function findBudget(db: Kysely<DB>, id: string) {
  const row = await selectBudget(db, id);
  if (!row) throw budgetNotFound(id);
  return row;
}

function budgetView(row: BudgetRow): BudgetView {
  const decimals = row.decimals ?? 0;
  return {
    id: row.id,
    type: row.type,
    name: row.name,
    assetId: row.asset_id,
    assetSymbol: row.symbol,
    decimals,
    total: formatAmount(row.total, decimals),
    remaining: formatAmount(row.remaining ?? '0', decimals),
    reserved: formatAmount(row.reserved ?? '0', decimals),
    paid: formatAmount(row.paid ?? '0', decimals),
    rejected: Number(row.rejected ?? 0),
    createdAt: row.created_at.toISOString(),
  };
}

export async function getBudget(db: Kysely<DB>, id: string): Promise<BudgetView> {
  const row = await selectBudgetRow(db, id);
  if (!row) throw budgetNotFound(id);
  return budgetView(row);
}

export async function listBudgets(db: Kysely<DB>, limit: number, offset: number): Promise<BudgetView[]> {
  return (await selectBudgetRows(db, limit, offset)).map(budgetView);
}
