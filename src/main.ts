// Process entry: config -> database (waiting for it at start-up) -> migrations -> server. SIGTERM/SIGINT
// close the server (finishing requests in flight) and then the database, within SHUTDOWN_TIMEOUT_MS.
// Tracing, when configured, was started before this module by `--import ./src/telemetry/register.ts`.
import pino from 'pino';
import { loadConfigOrExit } from './config.ts';
import { openMigratedDatabaseOrExit } from './db/open.ts';
import { systemClock } from './domain/clock.ts';
import { buildApp } from './app.ts';
import { ensureOwnerToken } from './admins/service.ts';
import { startPayoutWorker } from './payout/worker.ts';
import { startWebhookWorker } from './webhooks/delivery.ts';
import { chainPayoutForWorker } from './chain/claim-payout.ts';
import { prepareDevNetwork, startDevNetwork } from './chain/dev-network.ts';
import { shutdownTracing } from './telemetry/hooks.ts';
import { PayoutProgress } from './metrics/payout-progress.ts';
import { readinessOf, startOperationsServer } from './metrics/operations-server.ts';
import { chainObserverOf } from './metrics/registry.ts';

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  // Lines of the process itself (start-up, database connections); requests log through Fastify.
  const log = pino({ level: config.logLevel });
  const { database, applied } = await openMigratedDatabaseOrExit(config, log);
  // The development chain's token is compiled before the app is built (once per data folder): its CPU
  // would otherwise hold up the first requests. The chain itself starts once the server answers.
  await prepareDevNetwork(database.db, config);
  // The worker of this process tells its progress to /readyz and the metrics.
  const payoutProgress = config.payoutWorker ? new PayoutProgress() : undefined;
  const app = await buildApp({
    config,
    database,
    clock: systemClock,
    ...(payoutProgress && { payoutProgress }),
  });
  if (config.adminToken !== undefined) await ensureOwnerToken(database.db, config.adminToken, app.log);
  app.log.info(
    {
      database: database.kind,
      migrationsApplied: applied,
      dataDir: database.kind === 'pglite' ? config.dataDir : undefined,
    },
    'database ready',
  );

  let operations: Awaited<ReturnType<typeof startOperationsServer>> | undefined = undefined;
  let devChain: Awaited<ReturnType<typeof startDevNetwork>> = undefined;
  let worker: ReturnType<typeof startPayoutWorker> | undefined = undefined;
  let webhooks: ReturnType<typeof startWebhookWorker> | undefined = undefined;
  let background: Promise<void> | undefined = undefined;
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info(
      { signal, timeoutMs: config.shutdownTimeoutMs },
      'shutting down: finishing requests in flight',
    );
    // A request stuck on the database (or a client that never reads) must not hold the exit for ever.
    setTimeout(() => {
      app.log.error({ signal, timeoutMs: config.shutdownTimeoutMs }, 'shutdown timed out; exiting anyway');
      process.exit(1);
    }, config.shutdownTimeoutMs);
    try {
      await operations?.close();
      await app.close();
      // A development chain still starting is stopped once it has started, never left behind.
      await background;
      await worker?.stop();
      await webhooks?.stop();
      await devChain?.stop();
      await database.close();
      // The spans of the last requests (tracing on; a no-op otherwise).
      await shutdownTracing();
      process.exit(0);
    } catch (err) {
      app.log.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
  // The operations port (METRICS_PORT): /metrics, /healthz and /readyz for scrapers and orchestrators.
  const metricsPort = config.metrics.port;
  operations =
    metricsPort === undefined
      ? undefined
      : await startOperationsServer({
          metrics: app.metrics,
          token: config.metrics.token,
          port: metricsPort,
          host: config.metrics.host,
          notReady: readinessOf(app),
        });
  if (operations) app.log.info({ host: config.metrics.host, port: metricsPort }, 'operations port listening');

  // Background work starts once the server answers: /healthz does not wait for it (start-up time,
  // docs/performance.md).
  background = startBackgroundWork().catch((err: unknown) => {
    app.log.error({ err }, 'background work failed to start');
  });

  async function startBackgroundWork(): Promise<void> {
    // Webhook delivery (docs/webhooks.md): any number of processes share the outbox.
    webhooks = config.webhooks.worker
      ? startWebhookWorker(database.db, systemClock, {
          ...config.webhooks,
          log: (err) => app.log.error({ err }, 'webhook delivery round failed'),
        })
      : undefined;
    // [chain payout] the embedded development chain when no network is registered (DEV_CHAIN,
    // docs/payout.md). The payout worker starts after it: the chain re-registers its network and the
    // wallets' nonces before anything is broadcast to it.
    devChain = await startDevNetwork(database.db, systemClock, config, app.log);
    if (closing) return;
    worker = config.payoutWorker
      ? startPayoutWorker(database.db, systemClock, {
          idleMs: config.payoutIdleMs,
          reservationTtlSeconds: config.claimReservationTtlSeconds,
          log: (err) => app.log.error({ err }, 'payout batch failed'),
          ...(payoutProgress && { progress: payoutProgress }),
          // [chain payout] claims of chain assets go through the chain outbox.
          chain: chainPayoutForWorker(
            database.db,
            systemClock,
            config,
            (message) => app.log.warn(message),
            chainObserverOf(app.metrics),
          ),
        })
      : undefined;
  }
}

// Anything that fails between a reachable database and a listening server (the database lost
// again, the port taken) ends the process with a JSON line, not a bare stack trace.
main().catch((err: unknown) => {
  pino().fatal({ err }, 'start-up failed');
  process.exit(1);
});
