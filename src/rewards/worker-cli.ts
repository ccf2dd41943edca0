// `npm run worker`: the payout worker as its own process, against DATABASE_URL (PostgreSQL; the
// embedded PGlite belongs to one process, so there the service runs the worker itself).
// SIGTERM/SIGINT finish the batch in flight and exit; SIGKILL at any instant loses nothing,
// because a claim is marked SUCCEEDED in the same transaction that writes its ledger transfer.
import pino from 'pino';
import { loadConfigOrExit } from '../config.ts';
import { openMigratedDatabase } from '../db/open.ts';
import { systemClock } from '../domain/clock.ts';
import { startPayoutWorker } from './payout.ts';

const log = pino({ level: process.env.LOG_LEVEL ?? 'info' });
const config = loadConfigOrExit();
if (config.databaseUrl === undefined) {
  console.error('invalid configuration: DATABASE_URL is required for a separate payout worker');
  process.exit(2);
}
const { database } = await openMigratedDatabase(config);
const worker = startPayoutWorker(database.db, systemClock, { idleMs: config.payoutIdleMs, reservationTtlSeconds: config.claimReservationTtlSeconds, log: (err) => log.error({ err }, 'payout batch failed') });
log.info({ pid: process.pid }, 'payout worker started');
const stop = async (signal: string) => {
  log.info({ signal }, 'payout worker stopping');
  await worker.stop();
  await database.close();
  process.exit(0);
};
process.on('SIGTERM', () => void stop('SIGTERM'));
process.on('SIGINT', () => void stop('SIGINT'));
