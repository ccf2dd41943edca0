// `npm run worker`: the payout worker as its own process, against DATABASE_URL (PostgreSQL; the
// embedded PGlite belongs to one process, so there the service runs the worker itself).
// SIGTERM/SIGINT finish the batch in flight and exit (within SHUTDOWN_TIMEOUT_MS); SIGKILL at any
// instant loses nothing, because a claim is marked SUCCEEDED in the same transaction that writes its
// ledger transfer. A database that is down at start is waited for; one lost later is retried each batch.
// It also delivers webhooks (unless WEBHOOK_WORKER=false). `--only=payouts` or `--only=webhooks` runs
// one of the two alone, whatever the environment says: a process per role, scaled on its own.
import { parseArgs } from 'node:util';
import pino from 'pino';
import { loadConfigOrExit } from '../config.ts';
import { describeDbError } from '../db/connection.ts';
import { openMigratedDatabaseOrExit } from '../db/open.ts';
import { systemClock } from '../domain/clock.ts';
import { startPayoutWorker } from './worker.ts';
import { startWebhookWorker } from '../webhooks/delivery.ts';
import { chainPayoutForWorker } from '../chain/claim-payout.ts';
import { shutdownTracing } from '../telemetry/hooks.ts';
import { PayoutProgress } from '../metrics/payout-progress.ts';
import { chainObserverOf, createServiceMetrics } from '../metrics/registry.ts';
import { databaseReadings } from '../metrics/database-readings.ts';
import { startOperationsServer } from '../metrics/operations-server.ts';

const log = pino({ level: process.env.LOG_LEVEL ?? 'info' });
const roles = rolesOrExit();
const config = loadConfigOrExit();
if (config.databaseUrl === undefined) {
  console.error('invalid configuration: DATABASE_URL is required for a separate payout worker');
  process.exit(2);
}
const { database } = await openMigratedDatabaseOrExit(config, log);
// The worker's own metrics and readiness, on its own operations port (METRICS_PORT) when set. The
// payout metrics (and the readiness of payouts) only where payouts run, as in src/main.ts: a
// delivery-only worker would otherwise report a payout batch that never comes, ever older.
const progress = roles.payouts ? new PayoutProgress() : undefined;
const readings = databaseReadings(database.db, systemClock, {
  cacheMs: config.metrics.databaseReadingCacheMs,
  timeoutMs: config.metrics.databaseReadingTimeoutMs,
  onError: (err) => log.warn({ err: describeDbError(err) }, 'metrics database reading failed'),
});
const metrics = createServiceMetrics({
  database,
  readings,
  ...(progress && { payoutProgress: progress }),
  maxPartnerLabels: config.metrics.maxPartnerLabels,
});
const worker = !progress
  ? undefined
  : startPayoutWorker(database.db, systemClock, {
      progress,
      idleMs: config.payoutIdleMs,
      reservationTtlSeconds: config.claimReservationTtlSeconds,
      log: (err) => log.error({ err }, 'payout batch failed'),
      // [chain payout] claims of chain assets go through the chain outbox.
      chain: chainPayoutForWorker(
        database.db,
        systemClock,
        config,
        (message) => log.warn(message),
        chainObserverOf(metrics),
      ),
    });
// Webhook delivery (docs/webhooks.md) runs beside the payouts.
const webhooks =
  (roles.webhooks ?? config.webhooks.worker)
    ? startWebhookWorker(database.db, systemClock, {
        ...config.webhooks,
        log: (err) => log.error({ err }, 'webhook delivery round failed'),
      })
    : undefined;
const notReady = async (): Promise<string | undefined> => {
  const probe = await database.probe(config.readiness.timeoutMs);
  if (!probe.answered) return 'the database does not answer';
  if (progress === undefined) return undefined;
  const boundMs = config.readiness.payoutStallMs;
  if (progress.msSinceLastSuccess() <= boundMs) return undefined;
  const reading = await readings.get();
  if (reading === undefined || reading.oldestRequestedSeconds * 1000 <= boundMs) return undefined;
  return `payouts are stuck: a claim has waited ${Math.round(reading.oldestRequestedSeconds)} s`;
};
const operations =
  config.metrics.port === undefined
    ? undefined
    : await startOperationsServer({
        metrics,
        token: config.metrics.token,
        port: config.metrics.port,
        host: config.metrics.host,
        notReady,
      });
log.info(
  {
    pid: process.pid,
    metricsPort: config.metrics.port,
    payouts: worker !== undefined,
    webhooks: webhooks !== undefined,
  },
  worker === undefined ? 'webhook worker started' : 'payout worker started',
);
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
    await operations?.close();
    await worker?.stop();
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

/** `--only=payouts|webhooks`: which workers this process runs (webhooks undefined: as WEBHOOK_WORKER says). */
function rolesOrExit(): { payouts: boolean; webhooks: boolean | undefined } {
  try {
    const { values } = parseArgs({ options: { only: { type: 'string' } }, strict: true });
    if (values.only === undefined) return { payouts: true, webhooks: undefined };
    if (values.only === 'payouts') return { payouts: true, webhooks: false };
    if (values.only === 'webhooks') return { payouts: false, webhooks: true };
    throw new Error(`--only must be payouts or webhooks, not ${JSON.stringify(values.only)}`);
  } catch (err) {
    console.error(`invalid arguments: ${(err as Error).message}`);
    process.exit(2);
  }
}
