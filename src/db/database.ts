// What every database opener answers (a Database), the bounds on its waits, and the helpers both
// openers share: the pool's acquire listeners, a bounded wait, the wording of a database error.
import type { Kysely } from 'kysely';
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
  /**
   * Readiness: a `SELECT 1` that does not queue behind a saturated pool (its own connection on
   * PostgreSQL), bounded by timeoutMs, and how many queries wait for a pool connection right now.
   */
  probe(timeoutMs: number): Promise<DatabaseProbe>;
  /** The pool now (for metrics): connections open, in use, and queries waiting for one. */
  poolReading(): PoolReading;
  /** Calls listener with the wait of every pool acquire, in ms; answers a function that stops it. */
  onAcquire(listener: (waitMs: number) => void): () => void;
  close(): Promise<void>;
}

export interface PoolReading {
  /** Most connections the pool may open (PGlite: 1). */
  max: number;
  /** Connections open now. */
  open: number;
  /** Connections handed out now. */
  inUse: number;
  /** Queries waiting for a connection. */
  waiting: number;
}

/** Listeners of pool acquire waits; each one that throws is ignored (metrics must not fail a query). */
export class AcquireListeners {
  readonly #listeners = new Set<(waitMs: number) => void>();
  add(listener: (waitMs: number) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
  emit(waitMs: number): void {
    for (const listener of this.#listeners) {
      try {
        listener(waitMs);
      } catch {
        // a metric's failure is no reason to fail the query
      }
    }
  }
}

export interface DatabaseProbe {
  /** The database answered within the time given. */
  answered: boolean;
  /** Queries waiting for a connection of the pool (PGlite: for its one connection). */
  waiting: number;
  /** Why it did not answer (for the log; never shown to a client). */
  error?: unknown;
}

/** Bounds on every wait for the database; on PGlite, which has no server, only the pool wait applies. */
export interface DatabaseTimeouts {
  /** Longest wait for a pool connection, including opening a new one (pg-pool connectionTimeoutMillis). */
  acquireTimeoutMs: number;
  /** PostgreSQL statement_timeout of every pool connection (57014 when exceeded); 0 = none. */
  statementTimeoutMs: number;
  /** PostgreSQL lock_timeout of every pool connection (55P03 when exceeded); 0 = none. */
  lockTimeoutMs: number;
}

export const DEFAULT_DATABASE_TIMEOUTS: DatabaseTimeouts = {
  acquireTimeoutMs: 5000,
  statementTimeoutMs: 15_000,
  lockTimeoutMs: 3000,
};

/** Where the connection layer reports trouble it recovers from by itself; pino and Fastify's logger fit. */
export interface DatabaseLog {
  warn(details: object, message: string): void;
  info(details: object, message: string): void;
}

/** What a log line may say about a database error: its code and message, no stack, no connection string. */
export function describeDbError(error: unknown): { code?: string; message: string } {
  if (typeof error !== 'object' || error === null) return { message: String(error) };
  const { code, message } = error as { code?: unknown; message?: unknown };
  return {
    ...(typeof code === 'string' && { code }),
    message: typeof message === 'string' ? message : String(error),
  };
}

/** Pause before reconnect attempt n (1, 2, ...): doubling from 250 ms up to 5 s, with jitter so that processes spread out. */
export function reconnectDelayMs(attempt: number): number {
  const base = Math.min(5000, 250 * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (0.75 + Math.random() * 0.5));
}

/** Resolves with the promise's value, or rejects after ms (the promise keeps running; its result is dropped). */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(Object.assign(new Error(`${what} took longer than ${ms} ms`), { code: 'ETIMEDOUT' })),
      ms,
    );
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
