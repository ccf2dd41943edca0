// The budgets capability's SQL: reward assets, budgets and their stripes, top-ups, caps and the
// payout addresses shared by several accounts. Each function runs one statement (or returns one
// query) and returns rows; the services (service.ts, caps.ts, payout-addresses.ts) hold the rules,
// the views and the transactions.
import { sql } from 'kysely';
import type { Insertable, Kysely, QueryExecutorProvider, Transaction, Updateable } from 'kysely';
import type {
  BudgetCapsTable,
  BudgetStripesTable,
  BudgetsTable,
  DB,
  RewardAssetsTable,
} from '../db/schema.ts';
import { MAX_BASE_UNITS } from '../domain/amounts.ts';
import { OWED_CLAIM_STATUSES } from '../domain/claims.ts';

// --- Assets ---

/** Reward assets with the chain each one is paid on, if any. */
export function selectAssets(db: Kysely<DB>) {
  return db
    .selectFrom('reward_assets as a')
    .leftJoin('chain_assets as ca', 'ca.asset_id', 'a.id')
    .leftJoin('chain_networks as n', 'n.id', 'ca.network_id')
    .select([
      'a.id',
      'a.type',
      'a.symbol',
      'a.name',
      'a.decimals',
      'a.created_at',
      'ca.network_id',
      'n.name as network_name',
      'n.chain_id',
      'ca.token_address',
      'n.explorer_tx_url',
    ]);
}

/** Every reward asset with its chain, oldest first. */
export function selectAssetRows(db: Kysely<DB>) {
  return selectAssets(db).orderBy('a.created_at').orderBy('a.id').execute();
}

/** One reward asset with its chain, if it exists. */
export function selectAssetRow(db: Kysely<DB>, id: string) {
  return selectAssets(db).where('a.id', '=', id).executeTakeFirst();
}

export function insertRewardAsset(db: Kysely<DB>, values: Insertable<RewardAssetsTable>) {
  return db.insertInto('reward_assets').values(values).returningAll().executeTakeFirstOrThrow();
}

/** The reward asset's row, if it exists. */
export function selectRewardAsset(db: Kysely<DB>, id: string) {
  return db.selectFrom('reward_assets').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function updateRewardAsset(
  db: Kysely<DB>,
  id: string,
  set: Updateable<RewardAssetsTable>,
): Promise<void> {
  await db.updateTable('reward_assets').set(set).where('id', '=', id).execute();
}

// --- Budgets ---

export async function insertBudget(trx: Transaction<DB>, values: Insertable<BudgetsTable>): Promise<void> {
  await trx.insertInto('budgets').values(values).execute();
}

export async function insertBudgetStripes(
  trx: Transaction<DB>,
  rows: Array<Insertable<BudgetStripesTable>>,
): Promise<void> {
  await trx.insertInto('budget_stripes').values(rows).execute();
}

/**
 * Locks the budget's pool stripes FOR UPDATE, in stripe order (the order every reservation waits
 * in; the partners' stripes come after the pool's, src/domain/lock-order.ts).
 */
export async function lockBudgetStripes(trx: Transaction<DB>, id: string): Promise<void> {
  await sql`
      SELECT s.stripe FROM budget_stripes s WHERE s.budget_id = ${id} AND s.partner_id = ''
      ORDER BY s.stripe FOR UPDATE OF s`.execute(trx);
}

/**
 * Locks the budget's asset row (FOR NO KEY UPDATE: a claim's foreign key check, KEY SHARE, does not
 * wait for it). On PostgreSQL it only keeps the asset from changing under a top-up; on Citus it is
 * the first reference-table lock of a top-up, taken in the order every completion takes them (see
 * topUpBudget).
 */
export async function lockAssetOfBudget(trx: Transaction<DB>, assetId: string): Promise<void> {
  await sql`SELECT id FROM reward_assets WHERE id = ${assetId} FOR NO KEY UPDATE`.execute(trx);
}

/**
 * Raises the budget's total by `amount` unless it would pass the largest amount a budget holds;
 * answers whether it did.
 */
export async function raiseBudgetTotal(
  trx: Transaction<DB>,
  id: string,
  amount: bigint,
  now: Date,
): Promise<boolean> {
  const raised = await sql<{ id: string }>`
      UPDATE budgets SET total = total + ${amount.toString()}::numeric, updated_at = ${now}
      WHERE id = ${id} AND total + ${amount.toString()}::numeric <= ${MAX_BASE_UNITS.toString()}::numeric
      RETURNING id`.execute(trx);
  return raised.rows.length > 0;
}

/** Adds to each pool stripe of the budget its share (`shares[stripe]`; a share of 0 writes nothing). */
export async function addToBudgetStripes(trx: Transaction<DB>, id: string, shares: bigint[]): Promise<void> {
  await sql`
      UPDATE budget_stripes s SET remaining = s.remaining + v.share
      FROM unnest(${shares.map((_, stripe) => stripe)}::int[], ${shares.map((share) => share.toString())}::numeric[]) AS v(stripe, share)
      WHERE s.budget_id = ${id} AND s.partner_id = '' AND s.stripe = v.stripe AND v.share > 0`.execute(trx);
}

/** The budget's row, if it exists. */
export function selectBudget(db: Kysely<DB>, id: string) {
  return db.selectFrom('budgets').selectAll().where('id', '=', id).executeTakeFirst();
}

function budgetQuery(db: Kysely<DB>) {
  const owed = sql.join(OWED_CLAIM_STATUSES.map((s) => sql.lit(s)));
  return (
    db
      .selectFrom('budgets as b')
      .innerJoin('reward_assets as a', 'a.id', 'b.asset_id')
      // What is left (the pool's and the partners' stripes) and the claims' sums, each a join on
      // sums grouped by budget, not a sub-query correlated with the budget's row: on Citus the
      // stripes and the claims are distributed and budgets a reference table (docs/scaling.md
      // "On Citus"); PostgreSQL pushes `b.id = $1` into the sums.
      .leftJoin(
        (eb) =>
          eb
            .selectFrom('budget_stripes')
            .select(['budget_id', sql<string>`sum(remaining)`.as('v')])
            .groupBy('budget_id')
            .as('s'),
        (join) => join.onRef('s.budget_id', '=', 'b.id'),
      )
      .leftJoin(
        (eb) =>
          eb
            .selectFrom('claims')
            .select([
              'budget_id',
              sql<string>`sum(amount) FILTER (WHERE status IN (${owed}))`.as('reserved'),
              sql<string>`sum(amount) FILTER (WHERE status = 'SUCCEEDED')`.as('paid'),
              sql<number>`count(*) FILTER (WHERE status = 'REJECTED')`.as('rejected'),
            ])
            .groupBy('budget_id')
            .as('c'),
        (join) => join.onRef('c.budget_id', '=', 'b.id'),
      )
      .select([
        'b.id',
        'b.type',
        'b.name',
        'b.asset_id',
        'a.symbol',
        'a.decimals',
        'b.total',
        'b.created_at',
        sql<string>`coalesce(s.v, 0)::text`.as('remaining'),
        sql<string>`coalesce(c.reserved, 0)::text`.as('reserved'),
        sql<string>`coalesce(c.paid, 0)::text`.as('paid'),
        sql<number>`coalesce(c.rejected, 0)::int`.as('rejected'),
      ])
  );
}

/** A budget with its asset and its sums (remaining, reserved, paid) and rejected count. */
export type BudgetRow = Awaited<ReturnType<ReturnType<typeof budgetQuery>['executeTakeFirstOrThrow']>>;

export function selectBudgetRow(db: Kysely<DB>, id: string) {
  return budgetQuery(db).where('b.id', '=', id).executeTakeFirst();
}

/** A page of budgets, oldest first. */
export function selectBudgetRows(db: Kysely<DB>, limit: number, offset: number) {
  return budgetQuery(db).orderBy('b.created_at').limit(limit).offset(offset).execute();
}

// --- Caps ---

export function selectBudgetCaps(db: Kysely<DB>, budgetId: string) {
  return db.selectFrom('budget_caps').selectAll().where('budget_id', '=', budgetId).executeTakeFirst();
}

/** Inserts or replaces the budget's caps. */
export async function upsertBudgetCaps(
  db: Kysely<DB>,
  budgetId: string,
  values: Omit<Insertable<BudgetCapsTable>, 'budget_id'>,
): Promise<void> {
  await db
    .insertInto('budget_caps')
    .values({ budget_id: budgetId, ...values })
    .onConflict((oc) => oc.column('budget_id').doUpdateSet(values))
    .execute();
}

// --- Payout addresses ---

/** Takes the transaction-scoped advisory lock of a payout address (every process). */
export async function lockPayoutAddress(trx: QueryExecutorProvider, address: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`payout-address:${address}`}, 0))`.execute(trx);
}

/** Whether an account other than `accountId` has bound `address`. */
export async function addressBoundByAnother(
  trx: QueryExecutorProvider,
  address: string,
  accountId: string,
): Promise<boolean> {
  const other = await sql<{ one: number }>`
    SELECT 1 AS one FROM user_wallets WHERE address = ${address} AND account_id <> ${accountId} LIMIT 1`.execute(
    trx,
  );
  return other.rows.length > 0;
}

export interface SharedAddressRow {
  address: string;
  accounts: Array<{ accountId: string; displayName: string | null; chainId: string; boundAt: string }>;
}

/** A page of the payout addresses bound by more than one account, most accounts first. */
export async function selectSharedAddresses(
  db: Kysely<DB>,
  limit: number,
  offset: number,
): Promise<SharedAddressRow[]> {
  const { rows } = await sql<SharedAddressRow>`
    WITH shared AS (
      SELECT address, count(*) AS n FROM user_wallets GROUP BY address HAVING count(*) > 1
    )
    SELECT s.address,
           (SELECT json_agg(json_build_object('accountId', w.account_id, 'displayName', a.display_name,
                                              'chainId', w.chain_id::text, 'boundAt', w.bound_at) ORDER BY w.bound_at, w.account_id)
            FROM user_wallets w JOIN platform_accounts a ON a.id = w.account_id
            WHERE w.address = s.address) AS accounts
    FROM shared s
    ORDER BY s.n DESC, s.address
    LIMIT ${limit} OFFSET ${offset}`.execute(db);
  return rows;
}

/** How many payout addresses are bound by more than one account. */
export async function countSharedAddresses(db: Kysely<DB>): Promise<number> {
  const count = await sql<{ total: number }>`
    SELECT count(*)::int AS total FROM (SELECT 1 FROM user_wallets GROUP BY address HAVING count(*) > 1) s`.execute(
    db,
  );
  return count.rows[0]?.total ?? 0;
}
