// What the signed-in user's winning tickets paid, and their balances including what was paid on a
// chain (the ledger holds only ledger payouts): the mission page's prize and balance views.
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { formatAmount, parseAmount } from '../domain/amounts.ts';
import { balancesOf } from '../payout/ledger.ts';
import { chainPaidRows, drawPrizeRows } from './store.ts';

export interface TicketPrize {
  amount: string;
  assetSymbol: string;
  decimals: number;
  claimStatus: string;
}

/** The prize claim of each winning ticket (a draw grants it with period_key = the ticket id). */
export async function prizesOfTickets(
  db: Kysely<DB>,
  tickets: ReadonlyArray<{ id: string | null; drawId: string | null; won: boolean | null }>,
): Promise<Map<string, TicketPrize>> {
  const won = tickets.filter((t) => t.won === true && t.id !== null && t.drawId !== null);
  if (won.length === 0) return new Map();
  const rows = await drawPrizeRows(
    db,
    won.map((t) => t.id as string),
  );
  return new Map(
    rows.map((r) => [
      r.period_key,
      {
        amount: formatAmount(String(r.amount), r.decimals ?? 0),
        assetSymbol: r.symbol,
        decimals: r.decimals ?? 0,
        claimStatus: r.status,
      },
    ]),
  );
}

/**
 * The account's balances: the ledger's, plus what SUCCEEDED claims paid on a chain (a chain payout
 * moves tokens, not ledger entries), per asset.
 */
export async function paidBalancesOf(db: Kysely<DB>, accountId: string) {
  const ledger = await balancesOf(db, accountId);
  const chainPaid = await chainPaidRows(db, accountId);
  const byAsset = new Map(ledger.map((b) => [b.assetId, b]));
  for (const row of chainPaid) {
    const decimals = row.decimals ?? 0;
    const before = byAsset.get(row.id);
    const units =
      BigInt(row.paid) + (before ? parseAmount(before.balance, decimals, { allowZero: true }) : 0n);
    byAsset.set(row.id, {
      assetId: row.id,
      symbol: row.symbol,
      name: row.name,
      decimals,
      balance: formatAmount(units, decimals),
    });
  }
  return [...byAsset.values()].sort((a, b) => a.symbol.localeCompare(b.symbol));
}

/** A platform account's balances as the ledger holds them (the operator's view). */
export function ledgerBalancesOf(db: Kysely<DB>, accountId: string) {
  return balancesOf(db, accountId);
}
