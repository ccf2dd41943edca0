// Process entry: config -> database -> migrations -> server. SIGTERM/SIGINT close the server
// (finishing requests in flight) and then the database.
import { loadConfigOrExit } from './config.ts';
import { openMigratedDatabase } from './db/open.ts';
import { systemClock } from './domain/clock.ts';
import { buildApp } from './http/server.ts';
import { ensureOwnerToken } from './admins/service.ts';
import { startPayoutWorker } from './rewards/payout.ts';

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const { database, applied } = await openMigratedDatabase(config);
  if (config.adminToken !== undefined) await ensureOwnerToken(database.db, config.adminToken);
  const app = await buildApp({ config, database, clock: systemClock });
  app.log.info(
    { database: database.kind, migrationsApplied: applied, dataDir: database.kind === 'pglite' ? config.dataDir : undefined },
    'database ready',
  );

  const worker = config.payoutWorker
    ? startPayoutWorker(database.db, systemClock, { idleMs: config.payoutIdleMs, reservationTtlSeconds: config.claimReservationTtlSeconds, log: (err) => app.log.error({ err }, 'payout batch failed') })
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
