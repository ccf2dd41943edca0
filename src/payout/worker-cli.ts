// `npm run worker`: the payout worker as its own process, against DATABASE_URL (PostgreSQL; the
// embedded PGlite belongs to one process, so there the service runs the worker itself).
// SIGTERM/SIGINT finish the batch in flight and exit (within SHUTDOWN_TIMEOUT_MS); SIGKILL at any
// instant loses nothing, because a claim is marked SUCCEEDED in the same transaction that writes its
// ledger transfer. A database that is down at start is waited for; one lost later is retried each batch.
import pino from 'pino';
import { loadConfigOrExit } from '../config.ts';
import { describeDbError } from '../db/connection.ts';
import { DatabaseUnreachableError, openMigratedDatabase } from '../db/open.ts';
import { systemClock } from '../domain/clock.ts';
import { startPayoutWorker } from './worker.ts';
import { startWebhookWorker } from '../webhooks/delivery.ts';
import { chainPayoutForWorker } from '../chain/claim-payout.ts';
import { shutdownTracing } from '../telemetry/hooks.ts';

const log = pino({ level: process.env.LOG_LEVEL ?? 'info' });
const config = loadConfigOrExit();
if (config.databaseUrl === undefined) {
  console.error('invalid configuration: DATABASE_URL is required for a separate payout worker');
  process.exit(2);
}
let opened: Awaited<ReturnType<typeof openMigratedDatabase>>;
try {
  opened = await openMigratedDatabase(config, log);
} catch (error) {
  const details =
    error instanceof DatabaseUnreachableError
      ? { attempts: error.attempts, waitedMs: error.waitedMs, err: describeDbError(error.lastError) }
      : { err: describeDbError(error) };
  log.fatal(details, 'database not usable at start-up; exiting');
  process.exit(1);
}
const { database } = opened;
const worker = startPayoutWorker(database.db, systemClock, {
  idleMs: config.payoutIdleMs,
  reservationTtlSeconds: config.claimReservationTtlSeconds,
  log: (err) => log.error({ err }, 'payout batch failed'),
  // [chain payout] claims of chain assets go through the chain outbox.
  chain: chainPayoutForWorker(database.db, systemClock, config, (message) => log.warn(message)),
});
// Webhook delivery (docs/webhooks.md) runs beside the payouts.
const webhooks = config.webhooks.worker
  ? startWebhookWorker(database.db, systemClock, {
      ...config.webhooks,
      log: (err) => log.error({ err }, 'webhook delivery round failed'),
    })
  : undefined;
log.info({ pid: process.pid }, 'payout worker started');
let stopping = false;
const stop = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  log.info({ signal, timeoutMs: config.shutdownTimeoutMs }, 'payout worker stopping');
  setTimeout(() => {
    log.error(
      { signal, timeoutMs: config.shutdownTimeoutMs },
      'payout worker stop timed out; exiting anyway',
    );
    process.exit(1);
  }, config.shutdownTimeoutMs);
  try {
    await worker.stop();
    await webhooks?.stop();
    await database.close();
    await shutdownTracing();
    process.exit(0);
  } catch (err) {
    log.error({ err: describeDbError(err) }, 'payout worker stop failed');
    process.exit(1);
  }
};
process.on('SIGTERM', () => void stop('SIGTERM'));
process.on('SIGINT', () => void stop('SIGINT'));
