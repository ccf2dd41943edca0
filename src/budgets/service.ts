// Reward assets and budgets (operator CRUD, top-ups). What a budget pays out is taken by the
// reservation engine (reservations.ts).
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import { AmountError, formatAmount, MAX_BASE_UNITS, parseAmount } from '../domain/amounts.ts';
import { splitOverStripes } from '../domain/stripes.ts';
import {
  budgetNotFound,
  decimalsAlreadySet,
  decimalsNotSet,
  invalidAmount,
  rewardAssetNotFound,
} from '../error-factories.ts';
import { newId } from '../domain/ids.ts';

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

export interface AssetView {
  id: string;
  type: 'FT';
  symbol: string;
  name: string;
  decimals: number | null;
  createdAt: string;
}

function assetView(row: {
  id: string;
  type: 'FT';
  symbol: string;
  name: string;
  decimals: number | null;
  created_at: Date;
}): AssetView {
  return {
    id: row.id,
    type: row.type,
    symbol: row.symbol,
    name: row.name,
    decimals: row.decimals,
    createdAt: row.created_at.toISOString(),
  };
}

export async function createAsset(
  db: Kysely<DB>,
  clock: Clock,
  input: { symbol: string; name: string; decimals?: number | null },
): Promise<AssetView> {
  const now = clock.now();
  const row = await db
    .insertInto('reward_assets')
    .values({
      id: newId('ast'),
      symbol: input.symbol,
      name: input.name,
      decimals: input.decimals ?? null,
      created_at: now,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return assetView(row);
}

export async function listAssets(db: Kysely<DB>): Promise<AssetView[]> {
  return (await db.selectFrom('reward_assets').selectAll().orderBy('created_at').execute()).map(assetView);
}

async function findAsset(db: Kysely<DB>, id: string) {
  const row = await db.selectFrom('reward_assets').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw rewardAssetNotFound(id);
  return row;
}

export async function getAsset(db: Kysely<DB>, id: string): Promise<AssetView> {
  return assetView(await findAsset(db, id));
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
  const row = await db
    .updateTable('reward_assets')
    .set({
      ...(input.name !== undefined && { name: input.name }),
      ...(input.decimals !== undefined && { decimals: input.decimals }),
      updated_at: clock.now(),
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return assetView(row);
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
    await trx
      .insertInto('budgets')
      .values({
        id,
        type: input.type,
        asset_id: input.assetId,
        name: input.name,
        total,
        stripes,
        created_at: now,
        updated_at: now,
      })
      .execute();
    await trx
      .insertInto('budget_stripes')
      .values(
        splitOverStripes(total, stripes).map((remaining, stripe) => ({ budget_id: id, stripe, remaining })),
      )
      .execute();
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
  await db.transaction().execute(async (trx) => {
    // Under the row lock, so concurrent top-ups cannot together pass numeric(78,0) (that would be a 500).
    const current = await trx
      .selectFrom('budgets')
      .select(sql<string>`total::text`.as('total'))
      .where('id', '=', id)
      .forUpdate()
      .executeTakeFirstOrThrow();
    if (BigInt(current.total) + amount > MAX_BASE_UNITS) {
      throw invalidAmount(
        'amount',
        'the total would exceed the largest amount a budget holds (numeric(78,0))',
      );
    }
    await trx
      .updateTable('budgets')
      .set({ total: sql`total + ${amount.toString()}::numeric`, updated_at: clock.now() })
      .where('id', '=', id)
      .execute();
    const shares = splitOverStripes(amount, budget.stripes);
    for (const [stripe, share] of shares.entries()) {
      if (share === 0n) continue;
      await trx
        .updateTable('budget_stripes')
        .set({ remaining: sql`remaining + ${share.toString()}::numeric` })
        .where('budget_id', '=', id)
        .where('stripe', '=', stripe)
        .execute();
    }
  });
  return getBudget(db, id);
}

export async function findBudget(db: Kysely<DB>, id: string) {
  const row = await db.selectFrom('budgets').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw budgetNotFound(id);
  return row;
}

function budgetQuery(db: Kysely<DB>) {
  return db
    .selectFrom('budgets as b')
    .innerJoin('reward_assets as a', 'a.id', 'b.asset_id')
    .select((eb) => [
      'b.id',
      'b.type',
      'b.name',
      'b.asset_id',
      'a.symbol',
      'a.decimals',
      'b.total',
      'b.created_at',
      eb
        .selectFrom('budget_stripes as s')
        .select(sql<string>`coalesce(sum(s.remaining), 0)::text`.as('v'))
        .whereRef('s.budget_id', '=', 'b.id')
        .as('remaining'),
      eb
        .selectFrom('claims as c')
        .select(sql<string>`coalesce(sum(c.amount), 0)::text`.as('v'))
        .whereRef('c.budget_id', '=', 'b.id')
        .where('c.status', 'in', ['RESERVED', 'REQUESTED', 'FAILED'])
        .as('reserved'),
      eb
        .selectFrom('claims as c')
        .select(sql<string>`coalesce(sum(c.amount), 0)::text`.as('v'))
        .whereRef('c.budget_id', '=', 'b.id')
        .where('c.status', '=', 'SUCCEEDED')
        .as('paid'),
      eb
        .selectFrom('claims as c')
        .select(sql<number>`count(*)::int`.as('v'))
        .whereRef('c.budget_id', '=', 'b.id')
        .where('c.status', '=', 'REJECTED')
        .as('rejected'),
    ]);
}

type BudgetRow = Awaited<ReturnType<ReturnType<typeof budgetQuery>['executeTakeFirstOrThrow']>>;

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
  const row = await budgetQuery(db).where('b.id', '=', id).executeTakeFirst();
  if (!row) throw budgetNotFound(id);
  return budgetView(row);
}

export async function listBudgets(db: Kysely<DB>, limit: number, offset: number): Promise<BudgetView[]> {
  return (await budgetQuery(db).orderBy('b.created_at').limit(limit).offset(offset).execute()).map(
    budgetView,
  );
}
