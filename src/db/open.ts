// Opens the database the configuration names and brings its schema up to date.
import type { Config } from '../config.ts';
import { openPGlite, openPostgres } from './connection.ts';
import type { Database } from './connection.ts';
import { migrate } from './migrate.ts';
import path from 'node:path';

export async function openDatabase(config: Pick<Config, 'databaseUrl' | 'dataDir' | 'databasePoolSize'>): Promise<Database> {
  return config.databaseUrl !== undefined
    ? openPostgres(config.databaseUrl, config.databasePoolSize)
    : openPGlite(path.join(config.dataDir, 'pglite'));
}

export async function openMigratedDatabase(
  config: Pick<Config, 'databaseUrl' | 'dataDir' | 'databasePoolSize'>,
): Promise<{ database: Database; applied: string[] }> {
  const database = await openDatabase(config);
  try {
    return { database, applied: await migrate(database) };
  } catch (error) {
    await database.close();
    throw error;
  }
}
