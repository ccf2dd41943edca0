// Reward assets and budgets. A budget's remaining amount is split into stripes (sub-allotments) so
// that a crowd completing one mission does not queue on a single row; a reservation takes from one
// stripe with `remaining >= amount` as its guard, so no interleaving can overspend.
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Kysely, RawBuilder, Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import { AmountError, formatAmount, MAX_BASE_UNITS, parseAmount } from '../domain/amounts.ts';
import { appError } from '../errors.ts';
import { newId } from '../domain/ids.ts';
import { prepared } from '../db/connection.ts';

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

/** One amount to reserve; `key` (the user) picks the stripe the search starts at. */
export interface ReservationRequest {
  amount: bigint;
  key: string;
}

/**
 * Takes the amounts of many claims from one budget inside the caller's transaction; answers, per
 * request and in order, whether the budget covered it. No interleaving can overspend: every take
 * keeps `remaining >= 0` under the row lock (and a CHECK constraint says so too). Deadlock-free by
 * construction:
 *  1. for each amount, take as many whole amounts as a free stripe holds, from stripes nobody
 *     else holds (SKIP LOCKED: never waits), nearest the batch's home stripe, until covered;
 *  2. if that leaves some uncovered (the free stripes are short: the budget's last crumbs, or an
 *     amount larger than a stripe), roll back to the savepoint before step 1, which lets go of
 *     every stripe it took, then lock all the stripes in stripe order (waiting, but in one order
 *     for everybody, holding no other stripe of this budget) and share out what is left, request
 *     by request, gathering an amount from several stripes where needed.
 * A caller reserving from several budgets takes them in budget-id order (grantClaims does).
 */
export async function reserveMany(trx: Transaction<DB>, budgetId: string, stripes: number, requests: readonly ReservationRequest[]): Promise<boolean[]> {
  if (requests.length === 0) return [];
  const covered = requests.map(() => false);
  const byAmount = new Map<bigint, number[]>();
  for (const [i, r] of requests.entries()) {
    const indices = byAmount.get(r.amount);
    if (indices) indices.push(i);
    else byAmount.set(r.amount, [i]);
  }
  const home = homeStripe(requests[0]?.key ?? '', stripes);
  await sql`savepoint reserve_many`.execute(trx);
  let short = false;
  for (const [amount, indices] of byAmount) {
    let done = 0;
    while (done < indices.length) {
      const units = await takeFromFreeStripe(trx, budgetId, stripes, home, amount, indices.length - done);
      if (units === 0) break;
      for (const i of indices.slice(done, done + units)) covered[i] = true;
      done += units;
    }
    if (done < indices.length) {
      short = true;
      break;
    }
  }
  if (!short) return covered;
  await sql`rollback to savepoint reserve_many`.execute(trx);
  return gatherFromAllStripes(trx, budgetId, requests);
}

/**
 * The CTE `pick` (stripe, remaining): the stripe of the budget that nobody else holds (SKIP LOCKED:
 * never waits) with at least `atLeast` left, nearest the home stripe, locked by this transaction;
 * no row when there is none. Every take from a free stripe starts here.
 */
export function freeStripePick(budgetId: string, stripes: number, home: number, atLeast: bigint): RawBuilder<unknown> {
  return sql`
    pick AS (
      SELECT stripe, remaining FROM budget_stripes
      WHERE budget_id = ${budgetId} AND remaining >= ${atLeast.toString()}::numeric
      ORDER BY (stripe - ${home}::int + ${stripes}::int) % ${stripes}::int
      LIMIT 1
      FOR UPDATE SKIP LOCKED
    )`;
}

/**
 * One statement: lock a stripe nobody holds that has room for `amount`, and take up to `wanted`
 * whole amounts from it. Answers how many it took (0: no free stripe has room). The stripe's
 * value is read under the lock that the same statement then updates under; the update re-checks
 * it, so what is answered is exactly what was taken.
 */
async function takeFromFreeStripe(trx: Transaction<DB>, budgetId: string, stripes: number, home: number, amount: bigint, wanted: number): Promise<number> {
  const a = amount.toString();
  const query = sql<{ units: string }>`
    WITH ${freeStripePick(budgetId, stripes, home, amount)}
    UPDATE budget_stripes s
    SET remaining = s.remaining - least(div(pick.remaining, ${a}::numeric), ${wanted}::numeric) * ${a}::numeric
    FROM pick
    WHERE s.budget_id = ${budgetId} AND s.stripe = pick.stripe AND s.remaining = pick.remaining
    RETURNING least(div(pick.remaining, ${a}::numeric), ${wanted}::numeric)::text AS units`;
  const result = await trx.executeQuery(prepared('budget_take_free_stripe', query.compile(trx)));
  return Number(result.rows[0]?.units ?? 0);
}

/**
 * The CTEs `pick` and `take`: lock a stripe nobody holds that has room for `total`, nearest the
 * home stripe, and take `total` from it. `take` has one row (the stripe) or none (no free stripe
 * had room: nothing taken, nothing locked). For a caller that writes what it took in the same
 * statement (grantClaims).
 */
export function takeFromOneFreeStripe(budgetId: string, stripes: number, home: number, total: bigint): RawBuilder<unknown> {
  return sql`
    ${freeStripePick(budgetId, stripes, home, total)}, take AS (
      UPDATE budget_stripes s SET remaining = s.remaining - ${total.toString()}::numeric
      FROM pick
      WHERE s.budget_id = ${budgetId} AND s.stripe = pick.stripe AND s.remaining = pick.remaining
      RETURNING s.stripe
    )`;
}

/** Step 2 of reserveMany: every stripe locked in stripe order, what is left shared out in order. */
async function gatherFromAllStripes(trx: Transaction<DB>, budgetId: string, requests: readonly ReservationRequest[]): Promise<boolean[]> {
  const rows = await trx.selectFrom('budget_stripes').select(['stripe', 'remaining']).where('budget_id', '=', budgetId).orderBy('stripe').forUpdate().execute();
  const left = rows.map((r) => ({ stripe: r.stripe, remaining: BigInt(r.remaining), changed: false }));
  let total = left.reduce((sum, s) => sum + s.remaining, 0n);
  const covered = requests.map((request) => {
    if (request.amount > total) return false;
    total -= request.amount;
    // One stripe with room if there is one (fewer rows to write), else gather from several.
    const whole = left.find((s) => s.remaining >= request.amount);
    let missing = request.amount;
    for (const s of whole ? [whole] : left) {
      const part = s.remaining < missing ? s.remaining : missing;
      if (part === 0n) continue;
      s.remaining -= part;
      s.changed = true;
      missing -= part;
      if (missing === 0n) break;
    }
    return true;
  });
  const changed = left.filter((s) => s.changed);
  if (changed.length > 0) {
    // Absolute values are safe here: every stripe of the budget is locked by this transaction.
    await sql`
      UPDATE budget_stripes s SET remaining = v.remaining
      FROM unnest(${changed.map((c) => c.stripe)}::int[], ${changed.map((c) => c.remaining.toString())}::numeric[]) AS v(stripe, remaining)
      WHERE s.budget_id = ${budgetId} AND s.stripe = v.stripe`.execute(trx);
  }
  return covered;
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
