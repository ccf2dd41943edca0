// What the metrics read from the database at scrape time: claims by status, budgets, the payout
// queue and the chain outbox. One bounded reading serves every gauge of a scrape, is reused for a
// second or two (a scrape storm runs one query per interval, not one per scrape) and gives up after a
// short timeout, so that neither scrapes nor /readyz can load or wait on the database for long.
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import { readingRows } from './reading-store.ts';

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
  /** Why the wallet is halted (a reorg deeper than the confirmations), or null while it runs. */
  haltedReason: string | null;
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
  const { claims, budgets, queue, wallets } = await readingRows(db, now, timeoutMs);
  const ageSeconds = (since: Date | null) =>
    since === null ? 0 : Math.max(0, (now.getTime() - new Date(since).getTime()) / 1000);
  const head = queue[0];
  return {
    claimsByStatus: new Map(claims.map((r) => [r.status, num(r.n)])),
    budgets: budgets.map((r) => ({
      budgetId: r.id,
      asset: r.asset,
      total: num(r.total),
      remaining: num(r.remaining),
      owed: num(r.owed),
    })),
    payoutQueueDepth: num(head?.n),
    oldestRequestedSeconds: ageSeconds(head?.oldest ?? null),
    wallets: wallets.map((r) => ({
      budgetId: r.budget_id,
      address: r.address,
      pending: num(r.pending),
      oldestPendingSeconds: ageSeconds(r.oldest),
      nextNonce: num(r.next_nonce),
      haltedReason: r.halted_at === null ? null : (r.halted_reason ?? 'halted'),
    })),
    takenAt: now.getTime(),
  };
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
