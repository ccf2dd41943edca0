// Process entry: config -> the port (start-up answers, src/http/start-up-server.ts) -> database (waiting for it) ->
// migrations -> the app takes the port over. SIGTERM/SIGINT close the server (finishing requests in flight) and then
// the database, within SHUTDOWN_TIMEOUT_MS.
// Tracing, when configured, was started before this module by `--import ./src/telemetry/register.ts`.
import pino from 'pino';
import { loadConfigOrExit } from './config.ts';
import { citusLayout } from './db/citus.ts';
import { openMigratedDatabaseOrExit } from './db/open.ts';
import { listenWhileStarting } from './http/start-up-server.ts';
import { processLogOutput } from './logging/log-output.ts';
import { systemClock } from './domain/clock.ts';
import { buildApp } from './app.ts';
import { ensureOwnerToken } from './admins/service.ts';
import { issueFirstSignIn } from './admins/first-sign-in.ts';
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
  // Standard output with a bounded buffer, shared with the server's logger (src/logging/log-output.ts).
  const log = pino({ level: config.logLevel }, processLogOutput(config.logBufferMaxBytes).stream);
  // The port answers from now on: /healthz 200 while the process waits for its database as designed
  // (an orchestrator must not kill it for that), /readyz and every other route 503.
  const starting = await listenWhileStarting(config, log);
  // SIGTERM/SIGINT while waiting: nothing is in flight yet, so the process just ends (exit 0).
  const stopWhileStarting = (signal: string) => {
    log.info({ signal }, 'stopping while starting');
    void starting.close().finally(() => process.exit(0));
  };
  process.once('SIGTERM', stopWhileStarting);
  process.once('SIGINT', stopWhileStarting);
  const { database, applied } = await openMigratedDatabaseOrExit(config, log);
  starting.setWaitingReason('preparing the application');
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
  const firstSignIn = await issueFirstSignIn(database.db, systemClock, config);
  app.log.info(
    {
      database: database.kind,
      // On a Citus coordinator: how many workers and how the tables are spread (src/db/citus.ts).
      citus: database.kind === 'postgres' ? await citusLayout(database.db) : undefined,
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
  process.off('SIGTERM', stopWhileStarting);
  process.off('SIGINT', stopWhileStarting);
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  // The app takes the listening socket over from the start-up server.
  await app.listen(starting.handOver());
  // For the person at the terminal (development, no operator yet): not a log line, and the code
  // works once, for an hour (docs/operations.md "First hour").
  if (firstSignIn)
    process.stdout.write(
      `\nConsole: ${config.publicBaseUrl}/console/\nFirst sign-in (one time, an hour, creates the OWNER): ${firstSignIn.url}\n\n`,
    );
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
          // The partner API goes first: delivery holds messages back while its batches are saturated.
          yieldTo: { slotMs: () => app.coalescers.slotMs(), maxHoldMs: config.webhooks.yieldMs },
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
