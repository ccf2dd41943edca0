// Table type of the idempotency keys (migration 0011_idempotency.sql), kept beside the capability
// like src/chain/schema.ts; `idempotencyDb()` adds it to a Kysely instance.
import type { ColumnType, Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';

type Timestamp = ColumnType<Date, Date | string, Date | string>;

export interface IdempotencyKeysTable {
  scope: string;
  key: string;
  fingerprint: string;
  state: 'RUNNING' | 'DONE';
  owner: string;
  locked_until: Timestamp;
  response_status: number | null;
  response_headers: ColumnType<Record<string, string> | null, string | null, string | null>;
  response_body: string | null;
  created_at: Timestamp;
  expires_at: Timestamp;
}

// A type alias (not an interface) so that it satisfies withTables' Record constraint.
export type IdempotencyTables = { idempotency_keys: IdempotencyKeysTable };

export type IdempotencyDB = DB & IdempotencyTables;

/** The same connection, typed with the idempotency table too. */
export function idempotencyDb(db: Kysely<DB>): Kysely<IdempotencyDB> {
  return db.withTables<IdempotencyTables>() as Kysely<IdempotencyDB>;
}
