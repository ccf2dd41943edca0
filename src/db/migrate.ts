// Forward-only migrations: every src/db/migrations/NNNN_name.sql not yet recorded is applied in its
// own transaction, in file order, under an advisory lock so that processes starting together apply
// each one once. Running it again is harmless. Applied files are never edited: add a new one.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import type { Database } from './connection.ts';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
// Any fixed number; it only has to be the same in every process of this service.
const MIGRATION_LOCK_KEY = 726_418_001;

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
 * Whether every migration file is recorded already: one query instead of a locked transaction per
 * file, the usual case at start-up (about 0.45 s less CPU before `npm start` answers on PGlite,
 * docs/performance.md "Start-up, fifth round"). Recorded versions are committed and files are only
 * ever added, so a database that has them all needs nothing, and no lock, from this process.
 */
async function allRecorded(database: Database, versions: string[]): Promise<boolean> {
  const { rows } = await sql<{ version: string }>`SELECT version FROM schema_migrations`.execute(database.db);
  const recorded = new Set(rows.map((row) => row.version));
  return versions.every((version) => recorded.has(version));
}

/** Applies pending migrations; returns the versions applied by this call. */
export async function migrate(database: Database): Promise<string[]> {
  await database.execScript(
    `CREATE TABLE IF NOT EXISTS schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
  );
  const migrations = listMigrations();
  const versions = migrations.map((migration) => migration.version);
  if (await allRecorded(database, versions)) return [];
  const applied: string[] = [];
  for (const migration of migrations) {
    // One transaction per file: the lock is released at its end, and a failing file leaves nothing behind.
    const done = await database.db.transaction().execute(async (trx) => {
      // A migration may rewrite a large table: DATABASE_STATEMENT_TIMEOUT_MS bounds requests, not this.
      await sql`SET LOCAL statement_timeout = 0`.execute(trx);
      await sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`.execute(trx);
      const existing = await trx
        .selectFrom('schema_migrations')
        .select('version')
        .where('version', '=', migration.version)
        .executeTakeFirst();
      if (existing) return false;
      await sql.raw(migration.sql).execute(trx);
      await trx.insertInto('schema_migrations').values({ version: migration.version }).execute();
      return true;
    });
    if (done) applied.push(migration.version);
  }
  return applied;
}
