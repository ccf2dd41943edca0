// The embedded database: PGlite in this process (in memory, or in a data directory), driven through
// Kysely's PostgresDialect like PostgreSQL, so every query is the same SQL on both.
import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect, sql } from 'kysely';
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import type { DB } from './schema.ts';
import { AcquireListeners, within } from './database.ts';
import type { Database } from './database.ts';
import { pinnablePool } from './request-transaction.ts';

/**
 * PGlite is a single connection. This pool hands it to one Kysely connection at a time, queueing the
 * rest, so that a transaction is never interleaved with another request's statements.
 */
class PGlitePool implements PostgresPool {
  busy = false;
  readonly waiting: Array<() => void> = [];
  readonly acquired = new AcquireListeners();

  constructor(private readonly pglite: PGlite) {}

  async connect(): Promise<PostgresPoolClient> {
    const started = performance.now();
    if (this.busy) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.busy = true;
    this.acquired.emit(performance.now() - started);
    return {
      query: async <R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> => {
        // Without parameters use the simple protocol, which also runs multi-statement scripts.
        const result =
          parameters.length === 0
            ? ((await this.pglite.exec(sql)).at(-1) ?? { rows: [], affectedRows: 0 })
            : await this.pglite.query<R>(sql, parameters as unknown[]);
        const command = (sql.trimStart().split(/\s/, 1)[0] ?? '').toUpperCase();
        return {
          command: command as PostgresQueryResult<R>['command'],
          rowCount: result.affectedRows ?? result.rows.length,
          rows: result.rows as R[],
        };
      },
      release: () => this.release(),
    } as unknown as PostgresPoolClient;
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.busy = false;
  }

  async end(): Promise<void> {}
}

/**
 * PGlite's start parameters: its own, with a 16 MB buffer pool and room for 10 connections instead of
 * initdb's 128 MB and 100. PGlite runs one backend in this process, and its start zeroes the whole
 * shared memory: 128 MB cost 0.45 s of every start and 130 MiB of the process's RSS, measured
 * (docs/performance.md, "Twenty-first round"). Its data files are read through the operating
 * system's cache, which keeps what the smaller pool does not.
 */
export const PGLITE_START_PARAMS: readonly string[] = [
  ...PGlite.defaultStartParams,
  '-c',
  'shared_buffers=16MB',
  '-c',
  'max_connections=10',
];

export async function openPGlite(
  dataDir: string | undefined,
  options: { loadDataDir?: Blob } = {},
): Promise<Database> {
  if (dataDir !== undefined) mkdirSync(dataDir, { recursive: true });
  return wrapPGlite(
    await PGlite.create({ dataDir, loadDataDir: options.loadDataDir, startParams: [...PGLITE_START_PARAMS] }),
  );
}

/**
 * A PGlite instance as a Database. `openPGlite` opens one; the tests' snapshot (test/pglite-snapshot.ts)
 * wraps one it then dumps (`loadDataDir` starts a database from such a dump, skipping initdb and
 * the migrations).
 */
export function wrapPGlite(pglite: PGlite): Database {
  const pool = new PGlitePool(pglite);
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: pinnablePool(pool) }) });
  return {
    kind: 'pglite',
    db,
    async execScript(sql) {
      await pglite.exec(sql);
    },
    async listen() {
      return async () => {};
    },
    async notify() {},
    async probe(timeoutMs) {
      // One connection, so the probe takes its turn; the timeout says it waited too long.
      const waiting = pool.waiting.length;
      try {
        await within(sql`SELECT 1`.execute(db), timeoutMs, 'readiness query');
        return { answered: true, waiting };
      } catch (error) {
        return { answered: false, waiting, error };
      }
    },
    poolReading: () => ({ max: 1, open: 1, inUse: pool.busy ? 1 : 0, waiting: pool.waiting.length }),
    onAcquire: (listener) => pool.acquired.add(listener),
    async close() {
      await pglite.close();
    },
  };
}
