// The default payout provider: a double-entry ledger in the database. One transfer per claim
// (ledger_transfers.claim_id is unique, so a claim can never be paid twice), two entries per
// transfer (the budget's account -amount, the user's account +amount), so the entries of every
// asset sum to zero; balances are sums of entries, never stored.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { formatAmount } from '../domain/amounts.ts';
import { newId } from '../domain/ids.ts';
import { appError } from '../errors.ts';
import type { PayoutProvider } from './payout.ts';

export const budgetAccount = (budgetId: string) => `budget:${budgetId}`;
export const userAccount = (accountId: string) => `user:${accountId}`;

/**
 * Writes the transfers of a whole batch in one statement. A claim that already has its transfer
 * (a retry after a crash between payment and status update cannot happen here, since both are in
 * one transaction, but another provider's retry could) is left as it is and counts as paid.
 */
export const ledgerProvider: PayoutProvider = {
  name: 'ledger',
  async pay(trx, claims, now) {
    if (claims.length === 0) return [];
    const ids = claims.map(() => newId('trf'));
    await sql`
      WITH input AS (
        SELECT * FROM unnest(${ids}::text[], ${claims.map((c) => c.id)}::text[], ${claims.map((c) => c.assetId)}::text[],
                             ${claims.map((c) => c.amount)}::numeric[], ${claims.map((c) => budgetAccount(c.budgetId))}::text[],
                             ${claims.map((c) => userAccount(c.accountId))}::text[])
          AS x (id, claim_id, asset_id, amount, debit, credit)
      ),
      transfers AS (
        INSERT INTO ledger_transfers (id, claim_id, asset_id, amount, created_at)
        SELECT id, claim_id, asset_id, amount, ${now.toISOString()}::timestamptz FROM input
        ON CONFLICT (claim_id) DO NOTHING
        RETURNING id
      )
      INSERT INTO ledger_entries (transfer_id, account, asset_id, amount)
      SELECT i.id, e.account, i.asset_id, e.amount
      FROM input i
      JOIN transfers t ON t.id = i.id
      CROSS JOIN LATERAL (VALUES (i.debit, -i.amount, 1), (i.credit, i.amount, 2)) AS e (account, amount, n)
      ORDER BY i.id, e.n`.execute(trx);
    return claims.map((c) => ({ claimId: c.id, ok: true as const, reference: `ledger:${c.id}` }));
  },
};

/** Balances of a platform account per asset, derived from the ledger. */
export async function balancesOf(db: Kysely<DB>, accountId: string) {
  const rows = await db
    .selectFrom('ledger_entries as e')
    .innerJoin('reward_assets as a', 'a.id', 'e.asset_id')
    .select(['a.id', 'a.symbol', 'a.name', 'a.decimals', sql<string>`sum(e.amount)::text`.as('balance')])
    .where('e.account', '=', userAccount(accountId))
    .groupBy(['a.id', 'a.symbol', 'a.name', 'a.decimals'])
    .orderBy('a.symbol')
    .orderBy('a.id')
    .execute();
  return rows.map((r) => ({ assetId: r.id, symbol: r.symbol, name: r.name, decimals: r.decimals ?? 0, balance: formatAmount(r.balance, r.decimals ?? 0) }));
}

/** The operator's view of one platform account's balances; 404 for an unknown account. */
export async function accountBalances(db: Kysely<DB>, accountId: string) {
  const account = await db.selectFrom('platform_accounts').select('id').where('id', '=', accountId).executeTakeFirst();
  if (!account) throw appError('NOT_FOUND_PLATFORM_ACCOUNT', `no platform account '${accountId}'`);
  return balancesOf(db, accountId);
}

/** Per asset: the sum of all entries (always 0), transfers and the amount paid out. */
export async function ledgerTotals(db: Kysely<DB>) {
  const rows = await db
    .selectFrom('reward_assets as a')
    .select((eb) => [
      'a.id',
      'a.symbol',
      'a.decimals',
      eb.selectFrom('ledger_entries as e').select(sql<string>`coalesce(sum(e.amount), 0)::text`.as('v')).whereRef('e.asset_id', '=', 'a.id').as('entrySum'),
      eb.selectFrom('ledger_transfers as t').select(sql<number>`count(*)::int`.as('v')).whereRef('t.asset_id', '=', 'a.id').as('transfers'),
      eb.selectFrom('ledger_transfers as t').select(sql<string>`coalesce(sum(t.amount), 0)::text`.as('v')).whereRef('t.asset_id', '=', 'a.id').as('paid'),
    ])
    .orderBy('a.symbol')
    .orderBy('a.id')
    .execute();
  return rows.map((r) => ({
    assetId: r.id,
    symbol: r.symbol,
    entrySum: formatAmount(r.entrySum ?? '0', r.decimals ?? 0),
    transfers: Number(r.transfers ?? 0),
    paid: formatAmount(r.paid ?? '0', r.decimals ?? 0),
  }));
}
