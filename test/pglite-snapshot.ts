// Vitest's global setup: on PGlite (no DATABASE_URL), one database created and migrated once per run
// and dumped to a file; each test file's database starts from that dump (test/harness.ts) instead
// of PGlite's initdb and every migration, which took 5-8 s a file on a loaded 2-core machine (1.2 s
// from the dump). On PostgreSQL, likewise one database migrated once per run, which each file's
// database copies (`CREATE DATABASE ... TEMPLATE`) instead of applying every migration again; not
// on a Citus coordinator, whose databases are made on every node (test/citus/database.ts). The
// harness still runs `migrate`, which finds everything applied.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { TestProject } from 'vitest/node';
import { openPostgres, wrapPGlite } from '../src/db/connection.ts';
import { migrate } from '../src/db/migrate.ts';
import { onCitus, withClient } from './citus/database.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The migrated PGlite dump's path; '' on PostgreSQL. */
    pgliteSnapshot: string;
    /** The migrated PostgreSQL database each file's copies; '' on PGlite and on Citus. */
    postgresTemplate: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void> | void> {
  const url = process.env.DATABASE_URL;
  if (url) {
    project.provide('pgliteSnapshot', '');
    if (await onCitus()) {
      project.provide('postgresTemplate', '');
      return () => {};
    }
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
    project.provide('postgresTemplate', name);
    return async () => {
      await withClient(url, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    };
  }
  project.provide('postgresTemplate', '');
  const pglite = await PGlite.create();
  await migrate(wrapPGlite(pglite));
  const dump = await pglite.dumpDataDir('none');
  await pglite.close();
  const folder = mkdtempSync(path.join(tmpdir(), 'mrs-pglite-'));
  const file = path.join(folder, 'migrated.tar');
  writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  project.provide('pgliteSnapshot', file);
  return () => rmSync(folder, { recursive: true, force: true });
}
