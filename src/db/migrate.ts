// Forward-only migrations: every src/db/migrations/NNNN_name.sql not yet recorded is applied in its
// own transaction, in file order, under an advisory lock so that processes starting together apply
// each one once. Running it again is harmless. Applied files are never edited: add a new one.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import type { Transaction } from 'kysely';
import { isCitus } from './citus.ts';
import type { Database } from './connection.ts';
import type { DB } from './schema.ts';
import { splitSqlStatements } from './sql-statements.ts';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
// Any fixed number; it only has to be the same in every process of this service.
export const MIGRATION_LOCK_KEY = 726_418_001;

const CREATE_MIGRATIONS_TABLE = sql`CREATE TABLE IF NOT EXISTS schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`;

export function listMigrations(): Array<{ version: string; sql: string }> {
  return readdirSync(MIGRATIONS_DIR)
    .filter((file) => /^\d{4}_[a-z0-9_]+\.sql$/.test(file))
    .sort()
    .map((file) => ({
      version: file.replace(/\.sql$/, ''),
      sql: readFileSync(path.join(MIGRATIONS_DIR, file), 'utf8'),
    }));
}

/**
 * The versions recorded, or undefined on a database without schema_migrations yet. One query
 * instead of a locked transaction per file, the usual case at start-up (about 0.45 s less CPU
 * before `npm start` answers on PGlite, docs/performance.md "Start-up, fifth round"). Recorded
 * versions are committed and files are only ever added, so a database that has them all needs
 * nothing, and no lock, from this process.
 */
async function recordedVersions(database: Database): Promise<Set<string> | undefined> {
  try {
    const { rows } = await sql<{ version: string }>`SELECT version FROM schema_migrations`.execute(
      database.db,
    );
    return new Set(rows.map((row) => row.version));
  } catch (error) {
    if ((error as { code?: unknown }).code === '42P01') return undefined; // undefined_table
    throw error;
  }
}

/**
 * Waits for the migration lock as long as another process migrates (DATABASE_LOCK_TIMEOUT_MS would
 * fail a process that merely started beside another), then puts the pool's lock_timeout back for
 * the file's own statements, so an ALTER does not queue forever behind a long transaction.
 */
async function takeMigrationLock(trx: Transaction<DB>): Promise<void> {
  await sql`SET LOCAL lock_timeout = 0`.execute(trx);
  await sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`.execute(trx);
  await sql`SET LOCAL lock_timeout TO DEFAULT`.execute(trx);
}

/** Applies pending migrations; returns the versions applied by this call. */
export async function migrate(database: Database): Promise<string[]> {
  const migrations = listMigrations();
  const recorded = await recordedVersions(database);
  if (recorded === undefined) {
    // Under the lock: two processes starting together on an empty database would otherwise race in
    // CREATE TABLE IF NOT EXISTS, and the loser fails on pg_type's unique index (the service then
    // exited at start-up, seen in CI when the service and a worker waited for the same database).
    await database.db.transaction().execute(async (trx) => {
      await takeMigrationLock(trx);
      await CREATE_MIGRATIONS_TABLE.execute(trx);
    });
  } else if (migrations.every((migration) => recorded.has(migration.version))) return [];
  // On Citus each statement goes on its own (src/db/sql-statements.ts says why); elsewhere the file
  // goes whole, as it always has.
  const oneByOne = await isCitus(database.db);
  const applied: string[] = [];
  for (const migration of migrations) {
    // One transaction per file: the lock is released at its end, and a failing file leaves nothing behind.
    const done = await database.db.transaction().execute(async (trx) => {
      // A migration may rewrite a large table: DATABASE_STATEMENT_TIMEOUT_MS bounds requests, not this.
      await sql`SET LOCAL statement_timeout = 0`.execute(trx);
      await takeMigrationLock(trx);
      const existing = await trx
        .selectFrom('schema_migrations')
        .select('version')
        .where('version', '=', migration.version)
        .executeTakeFirst();
      if (existing) return false;
      if (oneByOne)
        for (const statement of splitSqlStatements(migration.sql)) await sql.raw(statement).execute(trx);
      else await sql.raw(migration.sql).execute(trx);
      await trx.insertInto('schema_migrations').values({ version: migration.version }).execute();
      return true;
    });
    if (done) applied.push(migration.version);
  }
  return applied;
}
