// Purges idempotency keys past their 24 hours in bounded batches on a timer of each process (like
// src/linking/expiry-purge.ts): no request pays for it, and an expired row is ignored until then.
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import { deleteExpiredKeys } from './store.ts';

/** How often each process purges (any process may; the deletes are idempotent). */
export const KEY_PURGE_INTERVAL_MS = 5 * 60 * 1000;

/** One purge run: at most batchSize x maxBatches rows. */
export async function purgeExpiredIdempotencyKeys(
  db: Kysely<DB>,
  now: Date,
  options: { batchSize?: number; maxBatches?: number } = {},
): Promise<number> {
  const batchSize = options.batchSize ?? 500;
  let total = 0;
  for (let batch = 0; batch < (options.maxBatches ?? 20); batch++) {
    const deleted = await deleteExpiredKeys(db, now, batchSize);
    total += deleted;
    if (deleted < batchSize) break;
  }
  return total;
}

export interface KeyPurgeLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** Runs the purge every intervalMs until stop(); a failed run is logged and retried next time. */
export function startIdempotencyKeyPurge(
  db: Kysely<DB>,
  clock: Clock,
  options: { intervalMs?: number; log: KeyPurgeLog },
): { stop(): Promise<void> } {
  let running: Promise<void> | undefined;
  const run = () => {
    if (running) return;
    running = purgeExpiredIdempotencyKeys(db, clock.now())
      .then((purged) => {
        if (purged > 0) options.log.info({ purged }, 'purged expired idempotency keys');
      })
      .catch((err: unknown) =>
        options.log.warn({ err }, 'purge of idempotency keys failed; retrying next run'),
      )
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(run, options.intervalMs ?? KEY_PURGE_INTERVAL_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
