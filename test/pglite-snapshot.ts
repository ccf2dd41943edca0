// Vitest's global setup: on PGlite (no DATABASE_URL), one database created and migrated once per run
// and dumped to a file; each test file's database starts from that dump (test/harness.ts) instead
// of PGlite's initdb and every migration, which took 5-8 s a file on a loaded 2-core machine (1.2 s
// from the dump). The harness still runs `migrate`, which finds everything applied.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { TestProject } from 'vitest/node';
import { wrapPGlite } from '../src/db/connection.ts';
import { migrate } from '../src/db/migrate.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The migrated PGlite dump's path; '' on PostgreSQL. */
    pgliteSnapshot: string;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  if (process.env.DATABASE_URL) {
    project.provide('pgliteSnapshot', '');
    return () => {};
  }
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
