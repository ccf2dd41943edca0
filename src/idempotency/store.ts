// SQL of the idempotency keys: claim a key (or learn who holds it), record the answer, let go.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { Coalescer } from '../db/coalescer.ts';
import { idempotencyDb } from './schema.ts';

export interface KeyClaim {
  scope: string;
  key: string;
  fingerprint: string;
  owner: string;
  now: Date;
  lockedUntil: Date;
  expiresAt: Date;
}

export interface StoredKey {
  fingerprint: string;
  state: 'RUNNING' | 'DONE';
  locked_until: Date;
  expires_at: Date;
  response_status: number | null;
  response_headers: Record<string, string> | null;
  response_body: string | null;
}

/**
 * Takes the key for this run when nobody holds it, when its row expired, or when the run that held
 * it stopped renewing (a crashed process) and this is the same request. One statement: of any
 * number of processes claiming together, exactly one gets a row back. Concurrent claims go to the
 * database together, one statement per batch (src/db/coalescer.ts; docs/performance.md), never
 * two of one key in a batch.
 */
export async function claimKey(db: Kysely<DB>, claim: KeyClaim): Promise<boolean> {
  return batchesOf(db).claims.submit(claim);
}

interface AnswerRecord {
  scope: string;
  key: string;
  owner: string;
  answer: { status: number; headers: Record<string, string>; body: string | null };
}

const keyOf = (item: { scope: string; key: string }) => `${item.scope}\u0000${item.key}`;

async function claimBatch(db: Kysely<DB>, claims: KeyClaim[]): Promise<boolean[]> {
  const column = <T>(pick: (c: KeyClaim) => T) => claims.map(pick);
  const { rows } = await sql<{ scope: string; key: string; owner: string }>`
    INSERT INTO idempotency_keys AS k (scope, key, fingerprint, state, owner, locked_until, created_at, expires_at)
    SELECT s, kk, f, 'RUNNING', o, l, c, e
    FROM unnest(${column((c) => c.scope)}::text[], ${column((c) => c.key)}::text[], ${column((c) => c.fingerprint)}::text[],
                ${column((c) => c.owner)}::text[], ${column((c) => c.lockedUntil)}::timestamptz[],
                ${column((c) => c.now)}::timestamptz[], ${column((c) => c.expiresAt)}::timestamptz[]) AS t(s, kk, f, o, l, c, e)
    ORDER BY s, kk
    ON CONFLICT (scope, key) DO UPDATE SET
      fingerprint = excluded.fingerprint, state = 'RUNNING', owner = excluded.owner,
      locked_until = excluded.locked_until, created_at = excluded.created_at, expires_at = excluded.expires_at,
      response_status = NULL, response_headers = NULL, response_body = NULL
    WHERE k.expires_at <= excluded.created_at
       OR (k.state = 'RUNNING' AND k.locked_until <= excluded.created_at AND k.fingerprint = excluded.fingerprint)
    RETURNING scope, key, owner`.execute(db);
  const owners = new Map(rows.map((row) => [keyOf(row), row.owner]));
  return claims.map((claim) => owners.get(keyOf(claim)) === claim.owner);
}

async function answerBatch(db: Kysely<DB>, records: AnswerRecord[]): Promise<boolean[]> {
  const column = <T>(pick: (r: AnswerRecord) => T) => records.map(pick);
  const { rows } = await sql<{ scope: string; key: string }>`
    UPDATE idempotency_keys AS k SET
      state = 'DONE', response_status = t.st, response_headers = t.h::jsonb, response_body = t.b
    FROM unnest(${column((r) => r.scope)}::text[], ${column((r) => r.key)}::text[], ${column((r) => r.owner)}::text[],
                ${column((r) => r.answer.status)}::int[], ${column((r) => JSON.stringify(r.answer.headers))}::text[],
                ${column((r) => r.answer.body)}::text[]) AS t(s, kk, o, st, h, b)
    WHERE k.scope = t.s AND k.key = t.kk AND k.owner = t.o AND k.state = 'RUNNING'
    RETURNING k.scope, k.key`.execute(db);
  const done = new Set(rows.map(keyOf));
  return records.map((record) => done.has(keyOf(record)));
}

// One pair of batching queues per database handle (the service has one).
const batches = new WeakMap<
  Kysely<DB>,
  { claims: Coalescer<KeyClaim, boolean>; answers: Coalescer<AnswerRecord, boolean> }
>();
function batchesOf(db: Kysely<DB>) {
  let found = batches.get(db);
  if (found === undefined) {
    found = {
      claims: new Coalescer<KeyClaim, boolean>({
        name: 'idempotency claim',
        keyOf,
        run: (items) => claimBatch(db, items),
      }),
      answers: new Coalescer<AnswerRecord, boolean>({
        name: 'idempotency answer',
        keyOf,
        run: (items) => answerBatch(db, items),
      }),
    };
    batches.set(db, found);
  }
  return found;
}

export async function findKey(db: Kysely<DB>, scope: string, key: string): Promise<StoredKey | undefined> {
  return idempotencyDb(db)
    .selectFrom('idempotency_keys')
    .select([
      'fingerprint',
      'state',
      'locked_until',
      'expires_at',
      'response_status',
      'response_headers',
      'response_body',
    ])
    .where('scope', '=', scope)
    .where('key', '=', key)
    .executeTakeFirst();
}

/** Stores the answer of the run that holds the key; false when it no longer holds it (batched). */
export async function recordAnswer(
  db: Kysely<DB>,
  scope: string,
  key: string,
  owner: string,
  answer: { status: number; headers: Record<string, string>; body: string | null },
): Promise<boolean> {
  return batchesOf(db).answers.submit({ scope, key, owner, answer });
}

/** Lets the key go (its run ended in a 5xx): the next request with it runs afresh. */
export async function releaseKey(db: Kysely<DB>, scope: string, key: string, owner: string): Promise<void> {
  await idempotencyDb(db)
    .deleteFrom('idempotency_keys')
    .where('scope', '=', scope)
    .where('key', '=', key)
    .where('owner', '=', owner)
    .where('state', '=', 'RUNNING')
    .execute();
}

/** Deletes up to `limit` expired rows; answers how many. */
export async function deleteExpiredKeys(db: Kysely<DB>, now: Date, limit: number): Promise<number> {
  const result = await sql`
    DELETE FROM idempotency_keys
     WHERE (scope, key) IN (
       SELECT scope, key FROM idempotency_keys WHERE expires_at <= ${now} LIMIT ${limit})`.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}
