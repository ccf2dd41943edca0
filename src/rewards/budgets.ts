// Reward assets and budgets. A budget's remaining amount is split into stripes (sub-allotments) so
// that a crowd completing one mission does not queue on a single row; a reservation takes from one
// stripe with `remaining >= amount` as its guard, so no interleaving can overspend.
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import { AmountError, formatAmount, MAX_BASE_UNITS, parseAmount } from '../domain/amounts.ts';
import { appError } from '../errors.ts';
import { newId } from '../domain/ids.ts';

export type BudgetType = 'FIXED' | 'LUCKY_DRAW';
export const DEFAULT_STRIPES = 16;

export function amountOf(text: string, decimals: number, field: string): bigint {
  try {
    return parseAmount(text, decimals);
  } catch (error) {
    if (error instanceof AmountError) throw appError('INVALID_AMOUNT', `${field}: ${error.message}`, { field });
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

function assetView(row: { id: string; type: 'FT'; symbol: string; name: string; decimals: number | null; created_at: Date }): AssetView {
  return { id: row.id, type: row.type, symbol: row.symbol, name: row.name, decimals: row.decimals, createdAt: row.created_at.toISOString() };
}

export async function createAsset(db: Kysely<DB>, clock: Clock, input: { symbol: string; name: string; decimals?: number | null }): Promise<AssetView> {
  const now = clock.now();
  const row = await db
    .insertInto('reward_assets')
    .values({ id: newId('ast'), symbol: input.symbol, name: input.name, decimals: input.decimals ?? null, created_at: now, updated_at: now })
    .returningAll()
    .executeTakeFirstOrThrow();
  return assetView(row);
}

export async function listAssets(db: Kysely<DB>): Promise<AssetView[]> {
  return (await db.selectFrom('reward_assets').selectAll().orderBy('created_at').execute()).map(assetView);
}

async function findAsset(db: Kysely<DB>, id: string) {
  const row = await db.selectFrom('reward_assets').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw appError('NOT_FOUND_REWARD_ASSET', `no reward asset '${id}'`);
  return row;
}

export async function getAsset(db: Kysely<DB>, id: string): Promise<AssetView> {
  return assetView(await findAsset(db, id));
}

/** Decimals may be set once: after that, every stored amount depends on them. */
export async function updateAsset(db: Kysely<DB>, clock: Clock, id: string, input: { name?: string; decimals?: number }): Promise<AssetView> {
  const asset = await findAsset(db, id);
  if (input.decimals !== undefined && asset.decimals !== null && asset.decimals !== input.decimals) {
    throw appError('DECIMALS_ALREADY_SET', `asset '${id}' already has ${asset.decimals} decimals; they cannot change`);
  }
  const row = await db
    .updateTable('reward_assets')
    .set({ ...(input.name !== undefined && { name: input.name }), ...(input.decimals !== undefined && { decimals: input.decimals }), updated_at: clock.now() })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return assetView(row);
}

/** The asset's decimals, or 1402 when they are not set (such an asset cannot back a reward). */
export async function decimalsOf(db: Kysely<DB>, assetId: string): Promise<number> {
  const asset = await findAsset(db, assetId);
  if (asset.decimals === null) throw appError('NOT_SET_REWARD_ASSET_DECIMALS', `reward asset '${assetId}' has no decimals set`);
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

/** Splits `amount` over `stripes` stripes: equal shares, the remainder to the first ones. */
export function splitOverStripes(amount: bigint, stripes: number): bigint[] {
  const n = BigInt(stripes);
  const share = amount / n;
  const extra = amount % n;
  return Array.from({ length: stripes }, (_, i) => share + (BigInt(i) < extra ? 1n : 0n));
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
    await trx.insertInto('budgets').values({ id, type: input.type, asset_id: input.assetId, name: input.name, total, stripes, created_at: now, updated_at: now }).execute();
    await trx
      .insertInto('budget_stripes')
      .values(splitOverStripes(total, stripes).map((remaining, stripe) => ({ budget_id: id, stripe, remaining })))
      .execute();
  });
  return getBudget(db, id);
}

export async function topUpBudget(db: Kysely<DB>, clock: Clock, id: string, amountText: string): Promise<BudgetView> {
  const budget = await findBudget(db, id);
  const amount = amountOf(amountText, await decimalsOf(db, budget.asset_id), 'amount');
  await db.transaction().execute(async (trx) => {
    // Under the row lock, so concurrent top-ups cannot together pass numeric(78,0) (that would be a 500).
    const current = await trx.selectFrom('budgets').select(sql<string>`total::text`.as('total')).where('id', '=', id).forUpdate().executeTakeFirstOrThrow();
    if (BigInt(current.total) + amount > MAX_BASE_UNITS) {
      throw appError('INVALID_AMOUNT', 'amount: the total would exceed the largest amount a budget holds (numeric(78,0))', { field: 'amount' });
    }
    await trx.updateTable('budgets').set({ total: sql`total + ${amount.toString()}::numeric`, updated_at: clock.now() }).where('id', '=', id).execute();
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
  if (!row) throw appError('NOT_FOUND_REWARD_BUDGET', `no reward budget '${id}'`);
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
      eb.selectFrom('budget_stripes as s').select(sql<string>`coalesce(sum(s.remaining), 0)::text`.as('v')).whereRef('s.budget_id', '=', 'b.id').as('remaining'),
      eb
        .selectFrom('claims as c')
        .select(sql<string>`coalesce(sum(c.amount), 0)::text`.as('v'))
        .whereRef('c.budget_id', '=', 'b.id')
        .where('c.status', 'in', ['RESERVED', 'REQUESTED', 'FAILED'])
        .as('reserved'),
      eb.selectFrom('claims as c').select(sql<string>`coalesce(sum(c.amount), 0)::text`.as('v')).whereRef('c.budget_id', '=', 'b.id').where('c.status', '=', 'SUCCEEDED').as('paid'),
      eb.selectFrom('claims as c').select(sql<number>`count(*)::int`.as('v')).whereRef('c.budget_id', '=', 'b.id').where('c.status', '=', 'REJECTED').as('rejected'),
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
  if (!row) throw appError('NOT_FOUND_REWARD_BUDGET', `no reward budget '${id}'`);
  return budgetView(row);
}

export async function listBudgets(db: Kysely<DB>, limit: number, offset: number): Promise<BudgetView[]> {
  return (await budgetQuery(db).orderBy('b.created_at').limit(limit).offset(offset).execute()).map(budgetView);
}

/** The stripe a user starts at: spreads a crowd evenly, and is the same for the same user. */
export function homeStripe(key: string, stripes: number): number {
  return createHash('sha256').update(key).digest().readUInt32BE(0) % stripes;
}

/**
 * Takes `amount` from the budget inside the caller's transaction; false when the budget cannot
 * cover it. Every UPDATE keeps `remaining >= amount` as its guard, re-checked under the row lock,
 * so no interleaving overspends. Deadlock-free by construction:
 *  1. a stripe with enough left that nobody holds (SKIP LOCKED), nearest the user's home stripe;
 *  2. else wait for one stripe with enough;
 *     both inside a savepoint: PostgreSQL keeps the lock of a row whose re-check failed, and
 *     rolling back to the savepoint lets it go, so a failed attempt holds nothing;
 *  3. else gather the amount from several stripes, locked in stripe order.
 */
export async function reserve(trx: Transaction<DB>, budgetId: string, stripes: number, amount: bigint, key: string): Promise<boolean> {
  const value = amount.toString();
  const home = homeStripe(key, stripes);
  // A row whose re-check failed stays locked (in PostgreSQL, for SELECT FOR UPDATE and UPDATE
  // alike); inside a savepoint, rolling back lets it go, so a failed attempt holds nothing.
  const attempt = async (free: boolean): Promise<boolean> => {
    await sql`savepoint reserve_attempt`.execute(trx);
    // One statement: pick a stripe with room (one nobody holds, when `free`) and take from it.
    const taken = await trx
      .updateTable('budget_stripes')
      .set({ remaining: sql`remaining - ${value}::numeric` })
      .where('budget_id', '=', budgetId)
      .where('stripe', '=', (eb) => {
        const pick = eb
          .selectFrom('budget_stripes')
          .select('stripe')
          .where('budget_id', '=', budgetId)
          .where(sql<boolean>`remaining >= ${value}::numeric`)
          .orderBy(sql`(stripe - ${home} + ${stripes}) % ${stripes}`)
          .limit(1);
        return free ? pick.forUpdate().skipLocked() : pick;
      })
      .where(sql<boolean>`remaining >= ${value}::numeric`)
      .returning('stripe')
      .executeTakeFirst();
    if (taken) return true;
    await sql`rollback to savepoint reserve_attempt`.execute(trx);
    return false;
  };
  if (await attempt(true)) return true;
  if (await attempt(false)) return true;
  // No single stripe holds it (an amount larger than a stripe's share, or the last crumbs of the
  // budget): lock every stripe in stripe order (no deadlock between such takers) and gather it.
  const rows = await trx
    .selectFrom('budget_stripes')
    .select(['stripe', 'remaining'])
    .where('budget_id', '=', budgetId)
    .orderBy('stripe')
    .forUpdate()
    .execute();
  let missing = amount;
  const takes: Array<[number, bigint]> = [];
  for (const row of rows) {
    if (missing === 0n) break;
    const part = BigInt(row.remaining) < missing ? BigInt(row.remaining) : missing;
    if (part > 0n) takes.push([row.stripe, part]);
    missing -= part;
  }
  if (missing > 0n) return false;
  for (const [stripe, part] of takes) {
    await trx
      .updateTable('budget_stripes')
      .set({ remaining: sql`remaining - ${part.toString()}::numeric` })
      .where('budget_id', '=', budgetId)
      .where('stripe', '=', stripe)
      .execute();
  }
  return true;
}

/** Gives a released reservation back to the budget. */
export async function release(trx: Transaction<DB>, budgetId: string, amount: bigint, key: string, stripes: number): Promise<void> {
  await trx
    .updateTable('budget_stripes')
    .set({ remaining: sql`remaining + ${amount.toString()}::numeric` })
    .where('budget_id', '=', budgetId)
    .where('stripe', '=', homeStripe(key, stripes))
    .execute();
}
