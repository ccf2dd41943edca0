// The column aliases every table type uses (src/db/schema.ts), defined once: how a Postgres type
// reads back through pg and PGlite, and what an insert or update may write to it.
import type { ColumnType } from 'kysely';

/** timestamptz, NOT NULL and without a default: read as a Date, written as a Date or an ISO string. */
export type Timestamp = ColumnType<Date, Date | string, Date | string>;
/** timestamptz that may be null: an insert may leave it out. */
export type NullableTimestamp = ColumnType<
  Date | null,
  Date | string | null | undefined,
  Date | string | null
>;
/** numeric(78,0): read as a decimal string, written as a decimal string or a bigint. */
export type Numeric = ColumnType<string, string | bigint, string | bigint>;
/** numeric(78,0) that may be null. */
export type NullableNumeric = ColumnType<string | null, string | bigint | null, string | bigint | null>;
/** jsonb written as JSON text (pg and PGlite both send it as jsonb text), read back parsed. */
export type JsonText<T> = ColumnType<T, string, string>;
