// Opens the database: a pg pool on PostgreSQL when DATABASE_URL is set, otherwise embedded PGlite
// (pglite.ts). Both are driven through Kysely's PostgresDialect, so every query is the same SQL on
// both; what an opener answers is database.ts's Database.
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { CompiledQuery, Kysely, PostgresDialect } from 'kysely';
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';
import type { DB } from './schema.ts';
import {
  AcquireListeners,
  DEFAULT_DATABASE_TIMEOUTS,
  describeDbError,
  reconnectDelayMs,
  within,
} from './database.ts';
import type { Database, DatabaseLog, DatabaseTimeouts } from './database.ts';
import { pinnablePool } from './request-transaction.ts';

export { DEFAULT_DATABASE_TIMEOUTS, describeDbError, reconnectDelayMs } from './database.ts';
export type { Database, DatabaseLog, DatabaseProbe, DatabaseTimeouts, PoolReading } from './database.ts';
export { openPGlite, PGLITE_START_PARAMS, wrapPGlite } from './pglite.ts';

// The PostgreSQL driver is loaded at the first PostgreSQL pool, not with this module: a start on PGlite
// never needs it (pg, pg-pool, pg-types and pg-protocol: module loading at every start,
// docs/performance.md "Start-up, fifth round"). pg is CommonJS, so require keeps openPostgres synchronous.
const requireFromHere = createRequire(import.meta.url);
let pgModule: typeof pg | undefined;
function pgDriver(): typeof pg {
  pgModule ??= requireFromHere('pg') as typeof pg;
  return pgModule;
}

// int8 comes back as a JS number on both engines (counts, progress values are bounded by validation);
// numeric (amounts) stays a string so that no amount ever passes through a float.
const INT8_OID = 20;
const pgTypes = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === INT8_OID
      ? (value: string) => Number(value)
      : pgDriver().types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
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
function withPreparedStatements(pool: pg.Pool, acquired: AcquireListeners): PostgresPool {
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
      if (mark)
        return client.query({
          name: nameOf(text as string, mark[1] as string),
          text: text as string,
          values,
        });
      return client.query(text as string, values);
    };
    return { query, release: () => client.release() } as unknown as PostgresPoolClient;
  };
  return {
    async connect() {
      const started = performance.now();
      const client = await pool.connect();
      acquired.emit(performance.now() - started);
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

export function openPostgres(
  connectionString: string,
  poolSize: number,
  options: { timeouts?: DatabaseTimeouts; log?: DatabaseLog } = {},
): Database {
  const timeouts = options.timeouts ?? DEFAULT_DATABASE_TIMEOUTS;
  const log = options.log;
  const driver = pgDriver();
  const pool = new driver.Pool({
    connectionString,
    max: poolSize,
    types: pgTypes,
    connectionTimeoutMillis: timeouts.acquireTimeoutMs,
    // Sent as startup options, so they hold from the first statement and cost no round trip.
    statement_timeout: timeouts.statementTimeoutMs,
    lock_timeout: timeouts.lockTimeoutMs,
    // A server that vanished without closing the socket (failover, network loss) is noticed.
    keepAlive: true,
  });
  // pg-pool listens for errors of idle clients only: a client that is checked out (a request between
  // two statements of its transaction) emits 'error' with no listener when the server goes away, and
  // that kills the process. Every client gets a listener for its whole life; the statement in flight
  // fails on its own, and pg-pool drops a client that is no longer queryable when it is released.
  pool.on('connect', (client) => {
    client.on('error', (err) => log?.warn({ err: describeDbError(err) }, 'database connection lost'));
  });
  // pg-pool re-emits an idle client's error here; without a listener that too would end the process.
  // The client's own listener above has logged it already.
  pool.on('error', () => {});

  // Readiness has a connection of its own, so that it answers even when every pool connection is busy.
  let probeClient: Promise<pg.Client> | undefined;
  const dropProbeClient = () => {
    const client = probeClient;
    probeClient = undefined;
    void client?.then((c) => c.end()).catch(() => {});
  };
  const probeConnection = (timeoutMs: number): Promise<pg.Client> => {
    if (probeClient === undefined) {
      const client = new driver.Client({
        connectionString,
        connectionTimeoutMillis: timeoutMs,
        statement_timeout: timeoutMs,
        keepAlive: true,
      });
      client.on('error', () => {
        if (probeClient === connecting) probeClient = undefined;
      });
      const connecting = client.connect().then(() => client);
      probeClient = connecting;
    }
    return probeClient;
  };
  const listeners = new Set<() => Promise<void>>();
  const acquired = new AcquireListeners();

  return {
    kind: 'postgres',
    db: new Kysely<DB>({
      dialect: new PostgresDialect({ pool: pinnablePool(withPreparedStatements(pool, acquired)) }),
    }),
    async execScript(sql) {
      await pool.query(sql);
    },
    async listen(channel, onMessage) {
      let client: pg.Client | undefined;
      let stopped = false;
      let failures = 0;
      let retry: NodeJS.Timeout | undefined;
      // Until it succeeds: a missed flush is covered by the caches' TTL, but a listener that gave up
      // would leave this process on TTL alone for good.
      const connect = async (): Promise<void> => {
        if (stopped) return;
        const next = new driver.Client({
          connectionString,
          connectionTimeoutMillis: timeouts.acquireTimeoutMs,
          keepAlive: true,
        });
        let failed = false;
        const fail = (err: unknown, message: string) => {
          if (failed || stopped) return;
          failed = true;
          if (client === next) client = undefined;
          void next.end().catch(() => {});
          failures += 1;
          const retryInMs = reconnectDelayMs(failures);
          log?.warn({ channel, attempt: failures, retryInMs, err: describeDbError(err) }, message);
          retry = setTimeout(() => void connect(), retryInMs);
        };
        next.on('notification', (message) => {
          if (message.channel === channel) onMessage(message.payload ?? '');
        });
        next.on('error', (err) => fail(err, 'listen connection lost; reconnecting'));
        try {
          await next.connect();
          await next.query(`LISTEN ${driver.escapeIdentifier(channel)}`);
        } catch (err) {
          fail(err, 'listen connection failed; retrying');
          return;
        }
        if (stopped) {
          await next.end().catch(() => {});
          return;
        }
        client = next;
        if (failures > 0) log?.info({ channel, attempts: failures + 1 }, 'listen connection restored');
        failures = 0;
      };
      await connect();
      const stop = async () => {
        stopped = true;
        clearTimeout(retry);
        listeners.delete(stop);
        await client?.end().catch(() => {});
      };
      listeners.add(stop);
      return stop;
    },
    async notify(channel, payload) {
      await pool.query('SELECT pg_notify($1, $2)', [channel, payload]);
    },
    async probe(timeoutMs) {
      const waiting = pool.waitingCount;
      try {
        await within(
          probeConnection(timeoutMs).then((client) => client.query('SELECT 1')),
          timeoutMs,
          'readiness query',
        );
        return { answered: true, waiting };
      } catch (error) {
        // Whatever state the connection is in (hung, broken), the next probe starts afresh.
        dropProbeClient();
        return { answered: false, waiting, error };
      }
    },
    poolReading: () => ({
      max: poolSize,
      open: pool.totalCount,
      inUse: pool.totalCount - pool.idleCount,
      waiting: pool.waitingCount,
    }),
    onAcquire: (listener) => acquired.add(listener),
    async close() {
      await Promise.all([...listeners].map((stop) => stop()));
      dropProbeClient();
      await pool.end();
    },
  };
}
