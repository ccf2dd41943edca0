// Process entry: config -> database -> migrations -> server. SIGTERM/SIGINT close the server
// (finishing requests in flight) and then the database.
import { ConfigError, loadConfig } from './config.ts';
import { openMigratedDatabase } from './db/open.ts';
import { systemClock } from './domain/clock.ts';
import { buildApp } from './http/server.ts';
import { ensureOwnerToken } from './admins/service.ts';
import { startRewardWorker } from './rewards/index.ts';

async function main(): Promise<void> {
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
  const { database, applied } = await openMigratedDatabase(config);
  if (config.adminToken !== undefined) await ensureOwnerToken(database.db, config.adminToken);
  const app = await buildApp({ config, database, clock: systemClock });
  app.log.info(
    { database: database.kind, migrationsApplied: applied, dataDir: database.kind === 'pglite' ? config.dataDir : undefined },
    'database ready',
  );

  const worker = config.payoutWorker
    ? startRewardWorker(database.db, systemClock, {
        idleMs: config.payoutIdleMs,
        batchSize: config.payoutBatchSize,
        reservationTtlSeconds: config.reservationTtlSeconds,
        holdMs: config.payoutHoldMs,
        log: (err, task) => app.log.error({ err, task }, 'reward worker task failed'),
      })
    : undefined;

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing requests in flight');
    try {
      await app.close();
      await worker?.stop();
      await database.close();
      process.exit(0);
    } catch (err) {
      app.log.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
}

await main();
