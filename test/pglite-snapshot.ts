// Vitest's global setup: on PGlite (no DATABASE_URL), one database created and migrated once per run
// and dumped to a file; each test file's database starts from that dump (test/harness.ts) instead
// of PGlite's initdb and every migration, which took 5-8 s a file on a loaded 2-core machine (1.2 s
// from the dump). On PostgreSQL, likewise one database migrated once per run, which each file's
// database copies (`CREATE DATABASE ... TEMPLATE`) instead of applying every migration again; not
// on a Citus coordinator, whose databases are made on every node (test/citus/database.ts). The
// harness still runs `migrate`, which finds everything applied. It also makes the run's own folder
// (`runFolder`), where the browser tests build the pages once for the run (test/e2e/web-build.ts).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { TestProject } from 'vitest/node';
import { PGLITE_START_PARAMS, openPostgres, wrapPGlite } from '../src/db/connection.ts';
import { migrate } from '../src/db/migrate.ts';
import { onCitus, withClient } from './citus/database.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The migrated PGlite dump's path; '' on PostgreSQL. */
    pgliteSnapshot: string;
    /** The migrated PostgreSQL database each file's copies; '' on PGlite and on Citus. */
    postgresTemplate: string;
    /** A folder of this run's own, shared by its worker processes and removed at its end. */
    runFolder: string;
  }
}

interface Prepared {
  pgliteSnapshot: string;
  postgresTemplate: string;
  runFolder: string;
  teardown: () => Promise<void> | void;
}

/**
 * Vitest runs a global setup once per project, and the root config's is inherited by both projects
 * (vitest.config.ts): three runs, three migrated databases. Kept on globalThis, since each project
 * loads this module anew in the one main process: made by the first run, handed to the others, undone
 * by the last teardown.
 */
const shared = globalThis as typeof globalThis & {
  mrsTestDatabase?: { prepared: Promise<Prepared>; users: number };
};

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  shared.mrsTestDatabase ??= { prepared: prepare(), users: 0 };
  const entry = shared.mrsTestDatabase;
  entry.users += 1;
  const prepared = await entry.prepared;
  project.provide('pgliteSnapshot', prepared.pgliteSnapshot);
  project.provide('postgresTemplate', prepared.postgresTemplate);
  project.provide('runFolder', prepared.runFolder);
  return async () => {
    entry.users -= 1;
    if (entry.users > 0) return;
    shared.mrsTestDatabase = undefined;
    await prepared.teardown();
  };
}

async function prepare(): Promise<Prepared> {
  const prepared = await prepareDatabase();
  const runFolder = mkdtempSync(path.join(tmpdir(), 'mrs-test-run-'));
  return {
    ...prepared,
    runFolder,
    teardown: async () => {
      rmSync(runFolder, { recursive: true, force: true });
      await prepared.teardown();
    },
  };
}

async function prepareDatabase(): Promise<Omit<Prepared, 'runFolder'>> {
  const url = process.env.DATABASE_URL;
  if (url) {
    if (await onCitus()) return { pgliteSnapshot: '', postgresTemplate: '', teardown: () => {} };
    const name = `mrs_template_${randomBytes(6).toString('hex')}`;
    await withClient(url, (client) => client.query(`CREATE DATABASE ${name}`));
    const target = new URL(url);
    target.pathname = `/${name}`;
    const database = openPostgres(target.toString(), 1);
    try {
      await migrate(database);
    } finally {
      // A template takes no copy while anyone is connected to it.
      await database.close();
    }
    return {
      pgliteSnapshot: '',
      postgresTemplate: name,
      teardown: async () => {
        await withClient(url, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
      },
    };
  }
  // Started as the tests' own databases will be (openPGlite), not with initdb's 128 MB pool.
  const pglite = await PGlite.create({ startParams: [...PGLITE_START_PARAMS] });
  await migrate(wrapPGlite(pglite));
  const dump = await pglite.dumpDataDir('none');
  await pglite.close();
  const folder = mkdtempSync(path.join(tmpdir(), 'mrs-pglite-'));
  const file = path.join(folder, 'migrated.tar');
  writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  return {
    pgliteSnapshot: file,
    postgresTemplate: '',
    teardown: () => rmSync(folder, { recursive: true, force: true }),
  };
}
