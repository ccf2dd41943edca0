// Processes that start together on an empty database (the service and a worker waiting for the same
// PostgreSQL, several replicas rolled out at once) migrate it once between them, and none fails:
// everything the migrator writes, schema_migrations itself included, is written under its lock.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { openPostgres } from '../src/db/connection.ts';
import type { Database } from '../src/db/connection.ts';
import { listMigrations, MIGRATION_LOCK_KEY, migrate } from '../src/db/migrate.ts';
import { describeUnless, needsPostgres } from './requirements.ts';

const serverUrl = process.env.DATABASE_URL ?? '';
const created: string[] = [];
const opened: Database[] = [];

async function admin<T>(run: (client: pg.Client) => Promise<T>, url = serverUrl): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/** An empty database of its own: its URL. */
async function emptyDatabase(): Promise<string> {
  const name = `mrs_migrate_${randomBytes(6).toString('hex')}`;
  await admin((client) => client.query(`CREATE DATABASE ${name}`));
  created.push(name);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

function open(url: string): Database {
  const database = openPostgres(url, 2);
  opened.push(database);
  return database;
}

const tableExists = (url: string) =>
  admin(async (client) => {
    const { rows } = await client.query<{ t: string | null }>(
      `SELECT to_regclass('schema_migrations')::text AS t`,
    );
    return rows[0]?.t !== null;
  }, url);

describeUnless(needsPostgres('processes migrating together need real PostgreSQL'))(
  'migrations started by several processes at once',
  () => {
    afterAll(async () => {
      for (const database of opened) await database.close();
      for (const name of created)
        await admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    });

    it('creates schema_migrations only under the migration lock', async () => {
      const url = await emptyDatabase();
      // Another process holds the lock (it is migrating): this one must wait before writing anything.
      const holder = new pg.Client({ connectionString: url });
      await holder.connect();
      await holder.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
      const migrating = migrate(open(url));
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await tableExists(url)).toBe(false);
      await holder.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
      await holder.end();
      expect(await migrating).toEqual(listMigrations().map((migration) => migration.version));
      expect(await tableExists(url)).toBe(true);
    });

    it('eight processes on one empty database: none fails, each file applied once', async () => {
      for (let round = 0; round < 3; round++) {
        const url = await emptyDatabase();
        const results = await Promise.all(Array.from({ length: 8 }, () => migrate(open(url))));
        const applied = results.flat().sort();
        expect(applied).toEqual(listMigrations().map((migration) => migration.version));
      }
    }, 120_000);
  },
);
