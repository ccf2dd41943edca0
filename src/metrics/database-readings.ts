// What the metrics read from the database at scrape time: claims by status, budgets, the payout
// queue and the chain outbox. One bounded reading serves every gauge of a scrape, is reused for a
// second or two (a scrape storm runs one query per interval, not one per scrape) and gives up after a
// short timeout, so that neither scrapes nor /readyz can load or wait on the database for long.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';

/** Budgets (and wallets) reported at most: labels stay bounded whatever the catalog holds. */
export const MAX_BUDGETS_REPORTED = 200;

export interface BudgetReading {
  budgetId: string;
  asset: string;
  /** In whole asset units (base units / 10^decimals), as Prometheus wants a float. */
  total: number;
  remaining: number;
  /** Claims waiting to be paid (REQUESTED, or FAILED and to be retried), in asset units. */
  owed: number;
}

export interface WalletReading {
  budgetId: string;
  address: string;
  /** Transactions signed or broadcast and not yet confirmed. */
  pending: number;
  /** Age of the oldest of them, in seconds (0 when none). */
  oldestPendingSeconds: number;
  /** The wallet's next nonce to sign (the store's counter). */
  nextNonce: number;
}

export interface DatabaseReading {
  claimsByStatus: Map<string, number>;
  budgets: BudgetReading[];
  /** REQUESTED claims whose attempt is due. */
  payoutQueueDepth: number;
  /** How long the oldest due REQUESTED claim has waited, in seconds (0 when none). */
  oldestRequestedSeconds: number;
  wallets: WalletReading[];
  /** When this reading was taken (app clock, ms since the epoch). */
  takenAt: number;
}

const num = (value: unknown): number => (value === null || value === undefined ? 0 : Number(value));

async function readOnce(db: Kysely<DB>, clock: Clock, timeoutMs: number): Promise<DatabaseReading> {
  const now = clock.now();
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
             (coalesce((SELECT sum(s.remaining) FROM budget_stripes s WHERE s.budget_id = b.id), 0)
                / 10 ^ coalesce(a.decimals, 0))::float8 AS remaining,
             (coalesce((SELECT sum(c.amount) FROM claims c
                         WHERE c.budget_id = b.id AND c.status IN ('REQUESTED', 'FAILED')), 0)
                / 10 ^ coalesce(a.decimals, 0))::float8 AS owed
        FROM budgets b JOIN reward_assets a ON a.id = b.asset_id
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
    }>`
      SELECT w.budget_id, w.address,
             (SELECT count(*) FROM chain_payouts p
               WHERE p.wallet_id = w.id AND p.status IN ('SIGNED', 'BROADCAST'))::int8 AS pending,
             (SELECT min(p.signed_at) FROM chain_payouts p
               WHERE p.wallet_id = w.id AND p.status IN ('SIGNED', 'BROADCAST')) AS oldest,
             (SELECT n.next_nonce FROM reward_wallet_nonces n WHERE n.wallet_id = w.id)::int8 AS next_nonce
        FROM reward_wallets w
       ORDER BY w.created_at DESC
       LIMIT ${MAX_BUDGETS_REPORTED}`.execute(trx);
    const ageSeconds = (since: Date | null) =>
      since === null ? 0 : Math.max(0, (now.getTime() - new Date(since).getTime()) / 1000);
    const head = queue.rows[0];
    return {
      claimsByStatus: new Map(claims.rows.map((r) => [r.status, num(r.n)])),
      budgets: budgets.rows.map((r) => ({
        budgetId: r.id,
        asset: r.asset,
        total: num(r.total),
        remaining: num(r.remaining),
        owed: num(r.owed),
      })),
      payoutQueueDepth: num(head?.n),
      oldestRequestedSeconds: ageSeconds(head?.oldest ?? null),
      wallets: wallets.rows.map((r) => ({
        budgetId: r.budget_id,
        address: r.address,
        pending: num(r.pending),
        oldestPendingSeconds: ageSeconds(r.oldest),
        nextNonce: num(r.next_nonce),
      })),
      takenAt: now.getTime(),
    };
  });
}

/** Resolves with the promise's value, or rejects after ms (the promise's own bound ends it on PostgreSQL). */
function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`database reading took longer than ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export interface DatabaseReadings {
  /** The latest reading (reused within the cache interval; one query in flight at most), or undefined when it failed. */
  get(): Promise<DatabaseReading | undefined>;
  /** Whether the last attempt succeeded, and how long it took (s). */
  readonly lastOutcome: { ok: boolean; seconds: number };
}

export function databaseReadings(
  db: Kysely<DB>,
  clock: Clock,
  options: { cacheMs: number; timeoutMs: number; onError?: (err: unknown) => void },
): DatabaseReadings {
  let cached: { at: number; pending: boolean; reading: Promise<DatabaseReading | undefined> } | undefined;
  const lastOutcome = { ok: true, seconds: 0 };
  return {
    lastOutcome,
    get() {
      const at = performance.now();
      if (cached && at - cached.at < options.cacheMs) return cached.reading;
      // A reading still in flight is shared, even past the cache interval: never two at once.
      if (cached?.pending) return cached.reading;
      const entry = {
        at,
        pending: true,
        reading: within(readOnce(db, clock, options.timeoutMs), options.timeoutMs).then(
          (reading) => {
            lastOutcome.ok = true;
            return reading;
          },
          (err: unknown) => {
            lastOutcome.ok = false;
            options.onError?.(err);
            return undefined;
          },
        ),
      };
      void entry.reading.finally(() => {
        entry.pending = false;
        entry.at = performance.now();
        lastOutcome.seconds = (entry.at - at) / 1000;
      });
      cached = entry;
      return entry.reading;
    },
  };
}
