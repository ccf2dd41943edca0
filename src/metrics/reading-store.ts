// The SQL of the scrape-time database reading (database-readings.ts): claims by status, budgets,
// the payout queue and the reward wallets, in one transaction bounded by statement_timeout.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { OWED_CLAIM_STATUSES } from '../domain/claims.ts';

/** Budgets (and wallets) reported at most: labels stay bounded whatever the catalog holds. */
export const MAX_BUDGETS_REPORTED = 200;

/** The rows of one reading, amounts already scaled to whole units in SQL. */
export async function readingRows(db: Kysely<DB>, now: Date, timeoutMs: number) {
  return db.transaction().execute(async (trx) => {
    // The same bound on PostgreSQL; on PGlite the setting is accepted and the JS timeout applies.
    await sql`SELECT set_config('statement_timeout', ${String(timeoutMs)}, true)`.execute(trx);
    const claims = await sql<{ status: string; n: number }>`
      SELECT status, count(*)::int8 AS n FROM claims GROUP BY status`.execute(trx);
    // Scaled in SQL: numeric(78,0) never passes through a JS number until it is a gauge value.
    const budgets = await sql<{
      id: string;
      asset: string;
      total: number;
      remaining: number;
      owed: number;
    }>`
      SELECT b.id, a.symbol AS asset,
             (b.total / 10 ^ coalesce(a.decimals, 0))::float8 AS total,
             (coalesce(s.remaining, 0) / 10 ^ coalesce(a.decimals, 0))::float8 AS remaining,
             (coalesce(c.owed, 0) / 10 ^ coalesce(a.decimals, 0))::float8 AS owed
        FROM budgets b JOIN reward_assets a ON a.id = b.asset_id
        -- The stripes' and the claims' sums in joins (on Citus both are distributed: no sub-query
        -- correlated with budgets over them, docs/scaling.md "On Citus").
        LEFT JOIN (SELECT budget_id, sum(remaining) AS remaining FROM budget_stripes GROUP BY budget_id) s
          ON s.budget_id = b.id
        LEFT JOIN (SELECT budget_id, sum(amount) AS owed FROM claims
                    WHERE status IN (${sql.join(OWED_CLAIM_STATUSES.map((s) => sql.lit(s)))}) GROUP BY budget_id) c
          ON c.budget_id = b.id
       ORDER BY b.created_at DESC
       LIMIT ${MAX_BUDGETS_REPORTED}`.execute(trx);
    const queue = await sql<{ n: number; oldest: Date | null }>`
      SELECT count(*)::int8 AS n, min(next_attempt_at) AS oldest
        FROM claims WHERE status = 'REQUESTED' AND next_attempt_at <= ${now}::timestamptz`.execute(trx);
    const wallets = await sql<{
      budget_id: string;
      address: string;
      pending: number;
      oldest: Date | null;
      next_nonce: number | null;
      halted_at: Date | null;
      halted_reason: string | null;
    }>`
      SELECT w.budget_id, w.address, w.halted_at, w.halted_reason,
             (SELECT count(*) FROM chain_payouts p
               WHERE p.wallet_id = w.id AND p.status IN ('SIGNED', 'BROADCAST'))::int8 AS pending,
             (SELECT min(p.signed_at) FROM chain_payouts p
               WHERE p.wallet_id = w.id AND p.status IN ('SIGNED', 'BROADCAST')) AS oldest,
             (SELECT n.next_nonce FROM reward_wallet_nonces n WHERE n.wallet_id = w.id)::int8 AS next_nonce
        FROM reward_wallets w
       ORDER BY w.created_at DESC
       LIMIT ${MAX_BUDGETS_REPORTED}`.execute(trx);
    return { claims: claims.rows, budgets: budgets.rows, queue: queue.rows, wallets: wallets.rows };
  });
}
