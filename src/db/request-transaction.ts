// One transaction around a whole unit of work (an operator's write request): every query issued in
// its async context, through the shared Kysely instance or inside a transaction a service opens
// there, runs on one pinned connection in that one transaction. A service's own
// `db.transaction()` becomes a savepoint, so services need not know they are nested.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Kysely, PostgresPool, PostgresPoolClient, Transaction } from 'kysely';

interface Pin {
  /** The pool connection of this unit of work, once its first query asked for one. */
  acquiring?: Promise<PostgresPoolClient>;
  /** Transactions open on it: 1 is the real one, each further level a savepoint. */
  depth: number;
  /** Set when the unit of work ended: late queries (an onResponse hook) use the pool as usual. */
  ended: boolean;
}

const pins = new AsyncLocalStorage<Pin>();

// On Node 20 an AsyncLocalStorage runs on async_hooks: once it has run, every promise of the
// process (the partner hot path's included, which never pins) calls its hooks, until it is
// disabled. So it is switched off whenever no unit of work is in flight, and `run` switches it on
// again. Nothing is lost: a pin is read only while its unit of work runs; after that it is `ended`
// and its late queries take the pool, as they do when the store reads undefined.
let unitsInFlight = 0;

// Exactly what Kysely's PostgresDriver sends to begin, commit and roll back a transaction.
const BEGIN = /^(begin|start transaction\b.*)$/i;

function pinnedClient(client: PostgresPoolClient, pin: Pin): PostgresPoolClient {
  const run = (text: string) => client.query(text, []);
  const query = async (text: unknown, values?: unknown[]) => {
    if (typeof text === 'string') {
      if (BEGIN.test(text)) {
        pin.depth += 1;
        // A nested transaction's isolation level cannot apply: it runs at the outer one's.
        if (pin.depth > 1) return run(`SAVEPOINT mrs_nested_${pin.depth}`);
      } else if (text === 'commit') {
        pin.depth -= 1;
        if (pin.depth > 0) return run(`RELEASE SAVEPOINT mrs_nested_${pin.depth + 1}`);
      } else if (text === 'rollback') {
        pin.depth -= 1;
        if (pin.depth > 0) {
          await run(`ROLLBACK TO SAVEPOINT mrs_nested_${pin.depth + 1}`);
          return run(`RELEASE SAVEPOINT mrs_nested_${pin.depth + 1}`);
        }
      }
    }
    return (client.query as (text: unknown, values?: unknown[]) => Promise<unknown>)(text, values);
  };
  // The connection goes back to the pool when the unit of work ends, not when a service is done.
  return { query, release: () => {} } as unknown as PostgresPoolClient;
}

/**
 * The pool as Kysely sees it: inside `inRequestTransaction` every connect answers the pinned
 * connection; elsewhere the pool's own.
 */
export function pinnablePool(pool: PostgresPool): PostgresPool {
  return {
    async connect() {
      const pin = pins.getStore();
      if (pin === undefined || pin.ended) return pool.connect();
      pin.acquiring ??= pool.connect();
      return pinnedClient(await pin.acquiring, pin);
    },
    end: () => pool.end(),
  };
}

/** Whether the caller runs inside `inRequestTransaction` (nested calls join the outer transaction). */
export function inRequestTransactionNow(): boolean {
  const pin = pins.getStore();
  return pin !== undefined && !pin.ended;
}

/**
 * Runs `work` in one transaction with every query of its async context (see the header). The
 * transaction commits when `work` resolves and rolls back when it throws. Queries run one after
 * another (a service that starts two transactions at once with Promise.all would interleave their
 * savepoints). Nested calls join the outer transaction (as a savepoint).
 */
export async function inRequestTransaction<DB, T>(
  db: Kysely<DB>,
  work: (trx: Transaction<DB>) => Promise<T>,
): Promise<T> {
  if (inRequestTransactionNow()) return db.transaction().execute(work);
  const pin: Pin = { depth: 0, ended: false };
  unitsInFlight += 1;
  return pins.run(pin, async () => {
    try {
      return await db.transaction().execute(work);
    } finally {
      pin.ended = true;
      const client = await pin.acquiring?.catch(() => undefined);
      client?.release();
      unitsInFlight -= 1;
      if (unitsInFlight === 0) pins.disable();
    }
  });
}
