// The payout provider interface and the default provider, a double-entry ledger in the database:
// one transfer per claim (unique by claim id), two entries summing to zero, balances derived from
// the entries.
import { sql } from 'kysely';
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import { formatAmount } from '../domain/amounts.ts';
import { newId } from '../domain/ids.ts';
import { prepared } from '../db/connection.ts';

export interface PayableClaim {
  id: string;
  budgetId: string;
  assetId: string;
  accountId: string;
  amount: string;
}

/** Pays one claim inside the worker's transaction; throws when the payment failed. */
export interface PayoutProvider {
  readonly name: string;
  pay(trx: Transaction<DB>, claim: PayableClaim, now: Date): Promise<void>;
  /** Optional: pays many claims at once, all or nothing (the ledger does it in three statements). */
  payBatch?(trx: Transaction<DB>, claims: PayableClaim[], now: Date): Promise<void>;
}

async function ledgerPay(trx: Transaction<DB>, claims: PayableClaim[], now: Date): Promise<void> {
  if (claims.length === 0) return;
  // One statement for the whole batch: the transfers (idempotent by claim id: a claim that already
  // has its transfer is skipped) and, for each new transfer, its two entries summing to zero.
  const column = <T>(pick: (c: PayableClaim) => T) => claims.map(pick);
  const query = sql`
    WITH input AS (
      SELECT * FROM unnest(${column(() => newId('trf'))}::text[], ${column((c) => c.id)}::text[], ${column((c) => c.assetId)}::text[],
                           ${column((c) => c.amount)}::numeric[], ${column((c) => `budget:${c.budgetId}`)}::text[],
                           ${column((c) => `user:${c.accountId}`)}::text[])
             AS i(transfer_id, claim_id, asset_id, amount, budget_account, user_account)
    ), transfer AS (
      INSERT INTO ledger_transfers (id, claim_id, asset_id, amount, created_at)
      SELECT transfer_id, claim_id, asset_id, amount, ${now}::timestamptz FROM input
      ON CONFLICT (claim_id) DO NOTHING
      RETURNING id
    )
    INSERT INTO ledger_entries (transfer_id, account, asset_id, amount)
    SELECT i.transfer_id, e.account, i.asset_id, e.amount
    FROM input i JOIN transfer t ON t.id = i.transfer_id
    CROSS JOIN LATERAL (VALUES (i.budget_account, -i.amount), (i.user_account, i.amount)) AS e(account, amount)`;
  await trx.executeQuery(prepared('ledger_pay', query.compile(trx)));
}

export const ledgerProvider: PayoutProvider = {
  name: 'ledger',
  pay: (trx, claim, now) => ledgerPay(trx, [claim], now),
  payBatch: ledgerPay,
};

/** Balances of a platform account per asset, derived from the ledger. */
export async function balancesOf(db: Kysely<DB>, accountId: string) {
  const rows = await db
    .selectFrom('ledger_entries as e')
    .innerJoin('reward_assets as a', 'a.id', 'e.asset_id')
    .select(['a.id', 'a.symbol', 'a.name', 'a.decimals', sql<string>`sum(e.amount)::text`.as('balance')])
    .where('e.account', '=', `user:${accountId}`)
    .groupBy(['a.id', 'a.symbol', 'a.name', 'a.decimals'])
    .orderBy('a.symbol')
    .execute();
  return rows.map((r) => ({
    assetId: r.id,
    symbol: r.symbol,
    name: r.name,
    decimals: r.decimals ?? 0,
    balance: formatAmount(r.balance, r.decimals ?? 0),
  }));
}
