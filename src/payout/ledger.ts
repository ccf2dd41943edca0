// The payout provider interface and the default provider, a double-entry ledger in the database:
// one transfer per claim (unique by claim: id and partner), two entries summing to zero, balances derived from
// the entries.
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import { formatAmount } from '../domain/amounts.ts';
import { insertLedgerTransfers, selectAccountBalances } from './store.ts';

export interface PayableClaim {
  id: string;
  partnerId: string;
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
  await insertLedgerTransfers(trx, claims, now);
}

export const ledgerProvider: PayoutProvider = {
  name: 'ledger',
  pay: (trx, claim, now) => ledgerPay(trx, [claim], now),
  payBatch: ledgerPay,
};

/** Balances of a platform account per asset, derived from the ledger. */
export async function balancesOf(db: Kysely<DB>, accountId: string) {
  const rows = await selectAccountBalances(db, accountId);
  return rows.map((r) => ({
    assetId: r.id,
    symbol: r.symbol,
    name: r.name,
    decimals: r.decimals ?? 0,
    balance: formatAmount(r.balance, r.decimals ?? 0),
  }));
}
