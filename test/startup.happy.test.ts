// Start-up work that `npm start` skips on an existing data folder (docs/performance.md, "Start-up,
// fifth round"): the migrations of an up-to-date database are one query, not a locked transaction per
// file; the embedded database zeroes a small buffer pool (twenty-first round); the PostgreSQL driver is not
// loaded when the service runs on PGlite.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import type { KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPGlite } from '../src/db/connection.ts';
import type { Database } from '../src/db/connection.ts';
import { listMigrations, migrate } from '../src/db/migrate.ts';

const ROOT = path.resolve(import.meta.dirname, '..');

/** The database with every statement Kysely runs counted (migrate's own queries go through it). */
function counted(database: Database): { database: Database; statements: string[] } {
  const statements: string[] = [];
  const plugin: KyselyPlugin = {
    transformQuery(args) {
      statements.push(args.node.kind);
      return args.node;
    },
    transformResult: async (args) => args.result,
  };
  return { database: { ...database, db: database.db.withPlugin(plugin) }, statements };
}

describe('migrations at start-up', () => {
  let database: Database;
  beforeAll(async () => {
    database = await openPGlite(undefined);
  });
  afterAll(() => database.close());

  it('applies the files missing from a database, in order, then checks an up-to-date one in one query', async () => {
    const versions = listMigrations().map((migration) => migration.version);
    const last = versions.at(-1) as string;
    // A database made before the last file was added.
    await database.execScript(
      `CREATE TABLE schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    for (const migration of listMigrations().filter((m) => m.version < last)) {
      await sql.raw(migration.sql).execute(database.db);
      await database.db.insertInto('schema_migrations').values({ version: migration.version }).execute();
    }
    const catchingUp = counted(database);
    expect(await migrate(catchingUp.database)).toEqual([last]);
    // The files already recorded are checked under the lock, one transaction each, as before.
    expect(catchingUp.statements.length).toBeGreaterThan(versions.length);

    const upToDate = counted(database);
    expect(await migrate(upToDate.database)).toEqual([]);
    expect(upToDate.statements).toEqual(['RawNode']);
    const recorded = await database.db.selectFrom('schema_migrations').select('version').execute();
    expect(recorded.map((row) => row.version).sort()).toEqual(versions);
  });
});

describe('the embedded database', () => {
  it("starts with a 16 MB buffer pool and 10 connections, not initdb's 128 MB and 100", async () => {
    // Its start zeroes the whole pool: 128 MB cost 0.45 s of each start and 130 MiB of RSS.
    const database = await openPGlite(undefined);
    try {
      const settings = await sql<{ buffers: string; connections: string }>`
        SELECT current_setting('shared_buffers') AS buffers, current_setting('max_connections') AS connections
      `.execute(database.db);
      expect(settings.rows).toEqual([{ buffers: '16MB', connections: '10' }]);
    } finally {
      await database.close();
    }
  });
});

describe('the PostgreSQL driver', () => {
  it('is loaded by the first PostgreSQL pool, not by opening PGlite', async () => {
    // A process of its own: the test's process has loaded pg already (the harness).
    const script = `
      import { createRequire } from 'node:module';
      import { openPGlite, openPostgres } from './src/db/connection.ts';
      const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((file) => file.includes('/node_modules/pg/'));
      const database = await openPGlite(undefined);
      const onPGlite = loaded();
      await database.close();
      // A pool connects at its first query: this opens nothing.
      const pool = openPostgres('postgres://nobody@127.0.0.1:9/none', 1);
      const onPostgres = loaded();
      await pool.close();
      console.log(JSON.stringify({ onPGlite, onPostgres }));
    `;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      { cwd: ROOT },
    );
    expect(JSON.parse(stdout.trim().split('\n').at(-1) as string)).toEqual({
      onPGlite: false,
      onPostgres: true,
    });
  });
});
