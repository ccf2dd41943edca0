// Opens the database: a pg pool on PostgreSQL when DATABASE_URL is set, otherwise embedded PGlite.
// Both are driven through Kysely's PostgresDialect, so every query is the same SQL on both.
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { CompiledQuery, Kysely, PostgresDialect } from 'kysely';
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

const PREPARED_MARK = /^\/\* prepared:([a-z0-9_]+) \*\//;

/**
 * Marks a hot statement to run as a named prepared statement on PostgreSQL: each connection
 * parses and plans it once instead of on every call (1.7x the transactions per second of the
 * unnamed form on the achieve upsert, docs/performance.md). Only for SQL whose text does not vary
 * with its input (pass lists as array parameters), since every distinct text stays prepared on
 * every connection. On PGlite the mark is a plain comment.
 */
export function prepared<R>(name: string, query: CompiledQuery<R>): CompiledQuery<R> {
  return CompiledQuery.raw(`/* prepared:${name} */ ${query.sql}`, [...query.parameters]) as CompiledQuery<R>;
}

/** The pool as Kysely sees it, running marked statements as named prepared statements. */
function withPreparedStatements(pool: pg.Pool): PostgresPool {
  const names = new Map<string, string>();
  const nameOf = (text: string, mark: string) => {
    let name = names.get(text);
    if (name === undefined) {
      // The hash keeps two texts under one mark apart (pg refuses a name reused for other SQL).
      name = `${mark}_${createHash('sha256').update(text).digest('hex').slice(0, 12)}`;
      names.set(text, name);
    }
    return name;
  };
  // One wrapper per pg client: Kysely keeps its connection objects by client identity.
  const wrappers = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const wrap = (client: pg.PoolClient): PostgresPoolClient => {
    const query = (text: unknown, values?: unknown[]) => {
      const mark = typeof text === 'string' ? PREPARED_MARK.exec(text) : null;
      if (mark) return client.query({ name: nameOf(text as string, mark[1] as string), text: text as string, values });
      return client.query(text as string, values);
    };
    return { query, release: () => client.release() } as unknown as PostgresPoolClient;
  };
  return {
    async connect() {
      const client = await pool.connect();
      let wrapper = wrappers.get(client);
      if (wrapper === undefined) {
        wrapper = wrap(client);
        wrappers.set(client, wrapper);
      }
      return wrapper;
    },
    end: () => pool.end(),
  };
}

export function openPostgres(connectionString: string, poolSize: number): Database {
  const pool = new pg.Pool({ connectionString, max: poolSize, types: pgTypes });
  // An idle client that errors (server restart) must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  return {
    kind: 'postgres',
    db: new Kysely<DB>({ dialect: new PostgresDialect({ pool: withPreparedStatements(pool) }) }),
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
