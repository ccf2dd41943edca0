// Opens the database the configuration names and brings its schema up to date, waiting (with
// backoff, logged) for a database that is not reachable yet, up to DATABASE_STARTUP_WAIT_MS.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '../config.ts';
import { describeDbError, openPGlite, openPostgres, reconnectDelayMs } from './connection.ts';
import type { Database, DatabaseLog } from './connection.ts';
import { classifyDbError } from './errors.ts';
import { migrate } from './migrate.ts';
import path from 'node:path';
import { isCitus, useStripesPerPartner } from './citus.ts';

type DatabaseConfig = Pick<
  Config,
  'databaseUrl' | 'dataDir' | 'databasePoolSize' | 'databaseTimeouts' | 'databaseStartupWaitMs'
>;

/** Start-up gave up: the database stayed unreachable for the whole DATABASE_STARTUP_WAIT_MS. */
export class DatabaseUnreachableError extends Error {
  constructor(
    readonly attempts: number,
    readonly waitedMs: number,
    readonly lastError: unknown,
  ) {
    super(`the database was not reachable in ${attempts} attempts over ${waitedMs} ms`, { cause: lastError });
    this.name = 'DatabaseUnreachableError';
  }
}

export async function openDatabase(
  config: Omit<DatabaseConfig, 'databaseStartupWaitMs'>,
  log?: DatabaseLog,
): Promise<Database> {
  return config.databaseUrl !== undefined
    ? openPostgres(config.databaseUrl, config.databasePoolSize, { timeouts: config.databaseTimeouts, log })
    : openPGlite(path.join(config.dataDir, 'pglite'));
}

export async function openMigratedDatabase(
  config: DatabaseConfig,
  log?: DatabaseLog,
): Promise<{ database: Database; applied: string[] }> {
  const started = performance.now();
  for (let attempt = 1; ; attempt++) {
    const database = await openDatabase(config, log);
    try {
      const applied = await migrate(database);
      useStripesPerPartner(database.kind === 'postgres' && (await isCitus(database.db)));
      return { database, applied };
    } catch (error) {
      await database.close().catch(() => {});
      // Only a database that is down, starting or overloaded is worth waiting for; a wrong
      // password or a broken migration will not get better.
      const kind = classifyDbError(error)?.kind;
      const waitedMs = Math.round(performance.now() - started);
      if (kind !== 'unavailable' && kind !== 'timeout') throw error;
      if (waitedMs >= config.databaseStartupWaitMs)
        throw new DatabaseUnreachableError(attempt, waitedMs, error);
      const retryInMs = Math.min(reconnectDelayMs(attempt), config.databaseStartupWaitMs - waitedMs);
      log?.warn(
        { attempt, waitedMs, retryInMs, err: describeDbError(error) },
        'database not reachable yet; retrying',
      );
      await sleep(retryInMs);
    }
  }
}

/**
 * openMigratedDatabase for a process entry (the service, the worker, the CLIs): a database that is
 * not usable ends the process with exit code 1 and one fatal JSON line saying why.
 */
export async function openMigratedDatabaseOrExit(
  config: DatabaseConfig,
  log: DatabaseLog & { fatal(details: object, message: string): void },
): Promise<{ database: Database; applied: string[] }> {
  try {
    return await openMigratedDatabase(config, log);
  } catch (error) {
    const details =
      error instanceof DatabaseUnreachableError
        ? { attempts: error.attempts, waitedMs: error.waitedMs, err: describeDbError(error.lastError) }
        : { err: describeDbError(error) };
    log.fatal(details, 'database not usable at start-up; exiting');
    process.exit(1);
  }
}
