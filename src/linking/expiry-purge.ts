// Purges what the login leaves behind once it is of no use: expired login states, mapping tokens a
// day past their expiry (kept that long for the audit trail), expired sessions and expired wallet
// (SIWE) challenges. Bounded batches
// on a timer of each process, so no request pays for it and no statement holds locks for long.
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import { deleteExpiredLoginStates, deleteExpiredMappingTokens, deleteExpiredSessions } from './store.ts';

export interface PurgeCounts {
  loginStates: number;
  mappingTokens: number;
  sessions: number;
  siweChallenges: number;
}

export interface PurgeOptions {
  /** Rows deleted by one statement. */
  batchSize?: number;
  /** Statements per table and run; what is left waits for the next run. */
  maxBatches?: number;
  /**
   * Deletes up to `limit` expired wallet (SIWE) challenges, returning how many: given by app.ts
   * (src/chain/user-wallets.ts purgeExpiredChallenges), so that linking stays unaware of chains.
   */
  walletChallenges?: (db: Kysely<DB>, now: Date, limit: number) => Promise<number>;
}

/** How long a used or expired mapping token is kept after its expiry, for the audit trail. */
export const MAPPING_TOKEN_AUDIT_MS = 24 * 3600 * 1000;
/** How often each process purges (any process may; the deletes are idempotent). */
export const PURGE_INTERVAL_MS = 5 * 60 * 1000;

async function inBatches(
  deleteBatch: (limit: number) => Promise<number>,
  options: PurgeOptions,
): Promise<number> {
  const batchSize = options.batchSize ?? 500;
  const maxBatches = options.maxBatches ?? 20;
  let total = 0;
  for (let batch = 0; batch < maxBatches; batch++) {
    const deleted = await deleteBatch(batchSize);
    total += deleted;
    if (deleted < batchSize) break;
  }
  return total;
}

/** One purge run: at most batchSize x maxBatches rows of each table. */
export async function purgeExpiredLoginData(
  db: Kysely<DB>,
  now: Date,
  options: PurgeOptions = {},
): Promise<PurgeCounts> {
  const tokensBefore = new Date(now.getTime() - MAPPING_TOKEN_AUDIT_MS);
  const loginStates = await inBatches((limit) => deleteExpiredLoginStates(db, now, limit), options);
  const mappingTokens = await inBatches(
    (limit) => deleteExpiredMappingTokens(db, tokensBefore, limit),
    options,
  );
  const sessions = await inBatches((limit) => deleteExpiredSessions(db, now, limit), options);
  const { walletChallenges } = options;
  const siweChallenges = walletChallenges
    ? await inBatches((limit) => walletChallenges(db, now, limit), options)
    : 0;
  return { loginStates, mappingTokens, sessions, siweChallenges };
}

export interface PurgeLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** Runs the purge every intervalMs until stop(); a failed run is logged and retried next time. */
export function startExpiredLoginPurge(
  db: Kysely<DB>,
  clock: Clock,
  options: PurgeOptions & { intervalMs?: number; log: PurgeLog },
): { stop(): Promise<void> } {
  let running: Promise<void> | undefined;
  const run = () => {
    if (running) return;
    running = purgeExpiredLoginData(db, clock.now(), options)
      .then((counts) => {
        if (counts.loginStates + counts.mappingTokens + counts.sessions + counts.siweChallenges > 0) {
          options.log.info(
            { purged: counts },
            'purged expired login states, mapping tokens, sessions and wallet challenges',
          );
        }
      })
      .catch((err: unknown) =>
        options.log.warn({ err }, 'purge of expired login data failed; retrying next run'),
      )
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(run, options.intervalMs ?? PURGE_INTERVAL_MS);
  // The timer alone never keeps the process alive.
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
