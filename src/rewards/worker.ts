// The reward worker: runs inside the service process and, for PostgreSQL, as its own process
// (`npm run worker`). Each cycle requests the claims of users who just linked, expires old
// reservations, puts failed payouts whose backoff has passed back in the queue, runs due draws, and
// pays REQUESTED claims in batches until none is left; then it waits idleMs. Any number of workers
// may run at once: every step takes its rows with FOR UPDATE SKIP LOCKED (or a row lock per draw).
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import { expireReservations, requestClaimsOfLinkedUsers } from './claims.ts';
import { runDueDraws } from './draws.ts';
import { ledgerProvider } from './ledger.ts';
import { requeueFailedClaims, runPayoutBatch } from './payout.ts';
import type { PayoutProvider } from './payout.ts';

export interface RewardWorkerOptions {
  provider?: PayoutProvider;
  /** Claims paid per transaction. */
  batchSize?: number;
  /** Pause between cycles when there is nothing to do, in milliseconds. */
  idleMs?: number;
  /** RESERVED claims of users who never link are rejected (budget released) after this; 0: never. */
  reservationTtlSeconds?: number;
  /** Testing aid: hold each payout batch open this long before committing. */
  holdMs?: number;
  log?: (err: unknown, task: string) => void;
}

// Links this recent are checked for claims that missed them (see requestClaimsOfLinkedUsers).
const LINK_SWEEP_WINDOW_MS = 60 * 60 * 1000;
const SWEEP_LIMIT = 1000;

export interface CycleResult {
  requested: number;
  expired: number;
  requeued: number;
  draws: number;
  paid: number;
}

/** One cycle of every task; stops paying early when `stopped()` turns true. */
export async function runRewardCycle(
  db: Kysely<DB>,
  clock: Clock,
  options: RewardWorkerOptions = {},
  stopped: () => boolean = () => false,
): Promise<CycleResult> {
  const batchSize = options.batchSize ?? 200;
  const result: CycleResult = { requested: 0, expired: 0, requeued: 0, draws: 0, paid: 0 };
  const task = async <T>(name: string, run: () => Promise<T>, fallback: T): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      options.log?.(error, name);
      return fallback;
    }
  };
  result.requested = await task('link sweep', () => requestClaimsOfLinkedUsers(db, clock, { sinceMs: LINK_SWEEP_WINDOW_MS, limit: SWEEP_LIMIT }), 0);
  result.expired = await task('reservation expiry', () => expireReservations(db, clock, { ttlSeconds: options.reservationTtlSeconds ?? 0, limit: SWEEP_LIMIT }), 0);
  result.requeued = await task('payout retry', () => requeueFailedClaims(db, clock, SWEEP_LIMIT), 0);
  result.draws = await task('due draws', () => runDueDraws(db, clock), 0);
  const payout = { provider: options.provider ?? ledgerProvider, batchSize, ...(options.holdMs !== undefined && { holdMs: options.holdMs }) };
  for (;;) {
    if (stopped()) break;
    const handled = await task('payout', () => runPayoutBatch(db, clock, payout), 0);
    result.paid += handled;
    if (handled < batchSize) break;
  }
  return result;
}

export interface RunningWorker {
  stop(): Promise<void>;
}

/** Runs cycles until stopped: at once again while there was work, else after idleMs. */
export function startRewardWorker(db: Kysely<DB>, clock: Clock, options: RewardWorkerOptions = {}): RunningWorker {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;
  const loop = (async () => {
    while (!stopped) {
      const result = await runRewardCycle(db, clock, options, () => stopped);
      const busy = result.paid + result.requested + result.expired + result.requeued + result.draws > 0;
      if (stopped) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
        timer = setTimeout(resolve, busy ? 0 : (options.idleMs ?? 500));
      });
    }
  })();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      wake?.();
      await loop;
    },
  };
}
