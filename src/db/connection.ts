// Opens the database: a pg pool on PostgreSQL when DATABASE_URL is set, otherwise embedded PGlite.
// Both are driven through Kysely's PostgresDialect, so every query is the same SQL on both.
import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect } from 'kysely';
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import pg from 'pg';
import type { DB } from './schema.ts';

export interface Database {
  kind: 'postgres' | 'pglite';
  db: Kysely<DB>;
  /** Runs a multi-statement SQL script (migrations); no parameters. */
  execScript(sql: string): Promise<void>;
  /**
   * Subscribes to a NOTIFY channel on a dedicated connection (PostgreSQL; reconnects after a
   * failure). On PGlite, which belongs to one process, there is nobody else to hear from: a no-op.
   */
  listen(channel: string, onMessage: (payload: string) => void): Promise<() => Promise<void>>;
  /** Sends a NOTIFY to every process listening (delivered when the sending transaction commits). */
  notify(channel: string, payload: string): Promise<void>;
  close(): Promise<void>;
}

// int8 comes back as a JS number on both engines (counts, progress values are bounded by validation);
// numeric (amounts) stays a string so that no amount ever passes through a float.
const INT8_OID = 20;
const pgTypes = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === INT8_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

export function openPostgres(connectionString: string, poolSize: number): Database {
  const pool = new pg.Pool({ connectionString, max: poolSize, types: pgTypes });
  // An idle client that errors (server restart) must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  return {
    kind: 'postgres',
    db: new Kysely<DB>({ dialect: new PostgresDialect({ pool }) }),
    async execScript(sql) {
      await pool.query(sql);
    },
    async listen(channel, onMessage) {
      let client: pg.Client | undefined;
      let stopped = false;
      const connect = async (): Promise<void> => {
        if (stopped) return;
        const next = new pg.Client({ connectionString });
        next.on('notification', (message) => {
          if (message.channel === channel) onMessage(message.payload ?? '');
        });
        next.on('error', () => {
          // The connection is gone: whatever was missed is covered by the caches' TTL; reconnect.
          void next.end().catch(() => {});
          if (!stopped) setTimeout(() => void connect().catch(() => {}), 500);
        });
        await next.connect();
        await next.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
        client = next;
      };
      await connect();
      return async () => {
        stopped = true;
        await client?.end().catch(() => {});
      };
    },
    async notify(channel, payload) {
      await pool.query('SELECT pg_notify($1, $2)', [channel, payload]);
    },
    async close() {
      await pool.end();
    },
  };
}

/**
 * PGlite is a single connection. This pool hands it to one Kysely connection at a time, queueing the
 * rest, so that a transaction is never interleaved with another request's statements.
 */
class PGlitePool implements PostgresPool {
  private busy = false;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly pglite: PGlite) {}

  async connect(): Promise<PostgresPoolClient> {
    if (this.busy) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.busy = true;
    return {
      query: async <R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> => {
        // Without parameters use the simple protocol, which also runs multi-statement scripts.
        const result =
          parameters.length === 0
            ? (await this.pglite.exec(sql)).at(-1) ?? { rows: [], affectedRows: 0 }
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

export async function openPGlite(dataDir: string | undefined): Promise<Database> {
  if (dataDir !== undefined) mkdirSync(dataDir, { recursive: true });
  const pglite = await PGlite.create(dataDir);
  return {
    kind: 'pglite',
    db: new Kysely<DB>({ dialect: new PostgresDialect({ pool: new PGlitePool(pglite) }) }),
    async execScript(sql) {
      await pglite.exec(sql);
    },
    async listen() {
      return async () => {};
    },
    async notify() {},
    async close() {
      await pglite.close();
    },
  };
}
