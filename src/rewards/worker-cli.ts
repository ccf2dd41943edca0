// `npm run worker`: the reward worker (payouts, retries, expiry, draws) as its own process, against
// DATABASE_URL. (The embedded PGlite belongs to one process, so there the service runs the worker.)
// SIGTERM/SIGINT finish the batch in flight and exit; SIGKILL at any instant loses nothing, because
// a claim is marked SUCCEEDED in the same transaction that writes its ledger transfer.
import pino from 'pino';
import { ConfigError, loadConfig } from '../config.ts';
import { openMigratedDatabase } from '../db/open.ts';
import { systemClock } from '../domain/clock.ts';
import { startRewardWorker } from './worker.ts';

const log = pino({ level: process.env.LOG_LEVEL ?? 'info' });
let config;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(2);
  }
  throw error;
}
if (config.databaseUrl === undefined) {
  console.error('invalid configuration: DATABASE_URL is required for a separate reward worker');
  process.exit(2);
}
const { database } = await openMigratedDatabase(config);
const worker = startRewardWorker(database.db, systemClock, {
  idleMs: config.payoutIdleMs,
  batchSize: config.payoutBatchSize,
  reservationTtlSeconds: config.reservationTtlSeconds,
  holdMs: config.payoutHoldMs,
  log: (err, task) => log.error({ err, task }, 'reward worker task failed'),
});
log.info({ pid: process.pid }, 'reward worker started');
const stop = async (signal: string) => {
  log.info({ signal }, 'reward worker stopping');
  await worker.stop();
  await database.close();
  process.exit(0);
};
process.on('SIGTERM', () => void stop('SIGTERM'));
process.on('SIGINT', () => void stop('SIGINT'));
