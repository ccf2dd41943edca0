// SQL of the idempotency keys: claim a key (or learn who holds it), record the answer, let go.
import { sql } from 'kysely';
import type { Kysely, Selectable } from 'kysely';
import type { DB, IdempotencyKeysTable } from '../db/schema.ts';
import { Coalescer } from '../db/coalescer.ts';
import type { CoalescerGroup } from '../db/coalescer.ts';

export interface KeyClaim {
  scope: string;
  key: string;
  fingerprint: string;
  owner: string;
  now: Date;
  lockedUntil: Date;
  expiresAt: Date;
}

/** What a request reads of a key it could not claim. */
export type StoredKey = Pick<
  Selectable<IdempotencyKeysTable>,
  | 'fingerprint'
  | 'state'
  | 'locked_until'
  | 'expires_at'
  | 'response_status'
  | 'response_headers'
  | 'response_body'
>;

/**
 * Takes the key for this run when nobody holds it, when its row expired, or when the run that held
 * it stopped renewing (a crashed process) and this is the same request. One statement: of any
 * number of processes claiming together, exactly one gets a row back. Concurrent claims go to the
 * database together, one statement per batch (src/db/coalescer.ts; docs/performance.md), never
 * two of one key in a batch, and in the same statement as the answers of runs that ended meanwhile.
 */
export async function claimKey(db: Kysely<DB>, claim: KeyClaim, group?: CoalescerGroup): Promise<boolean> {
  return batchesOf(db, group).submit({ claim });
}

interface AnswerRecord {
  scope: string;
  key: string;
  owner: string;
  answer: { status: number; headers: Record<string, string>; body: string | null };
}

const keyOf = (item: { scope: string; key: string }) => `${item.scope}\u0000${item.key}`;

/** The claims' INSERT: answers (scope, key, owner) of each key it took. */
function claimInsert(claims: KeyClaim[]) {
  const column = <T>(pick: (c: KeyClaim) => T) => claims.map(pick);
  return sql`
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
    RETURNING scope, key, owner`;
}

/** The answers' UPDATE: answers (scope, key) of each run that still held its key. */
function answerUpdate(records: AnswerRecord[]) {
  const column = <T>(pick: (r: AnswerRecord) => T) => records.map(pick);
  return sql`
    UPDATE idempotency_keys AS k SET
      state = 'DONE', response_status = t.st, response_headers = t.h::jsonb, response_body = t.b
    FROM unnest(${column((r) => r.scope)}::text[], ${column((r) => r.key)}::text[], ${column((r) => r.owner)}::text[],
                ${column((r) => r.answer.status)}::int[], ${column((r) => JSON.stringify(r.answer.headers))}::text[],
                ${column((r) => r.answer.body)}::text[]) AS t(s, kk, o, st, h, b)
    WHERE k.scope = t.s AND k.key = t.kk AND k.owner = t.o AND k.state = 'RUNNING'
    RETURNING k.scope, k.key`;
}

/** One piece of key work: a claim (before a run) or an answer (after it). */
export type KeyWork = { claim: KeyClaim; answer?: undefined } | { answer: AnswerRecord; claim?: undefined };

const workKey = (work: KeyWork) => keyOf(work.claim ?? work.answer);

/**
 * Claims and answers waiting together go as ONE statement (two data-modifying CTEs): a run's
 * answer and the next runs' claims share a round trip. The coalescer never puts two items of one
 * key in a batch, so the INSERT and the UPDATE never touch the same row; the statement is all or
 * nothing, like each of its parts alone.
 */
export async function keyBatch(db: Kysely<DB>, work: KeyWork[]): Promise<boolean[]> {
  const claims = work.flatMap((w) => (w.claim ? [w.claim] : []));
  const answers = work.flatMap((w) => (w.answer ? [w.answer] : []));
  let claimed: Array<{ scope: string; key: string; owner: string }> = [];
  let answered: Array<{ scope: string; key: string }> = [];
  if (answers.length === 0) {
    claimed = (await sql<{ scope: string; key: string; owner: string }>`${claimInsert(claims)}`.execute(db))
      .rows;
  } else if (claims.length === 0) {
    answered = (await sql<{ scope: string; key: string }>`${answerUpdate(answers)}`.execute(db)).rows;
  } else {
    const { rows } = await sql<{ answer: boolean; scope: string; key: string; owner: string | null }>`
      WITH answered AS (${answerUpdate(answers)}), claimed AS (${claimInsert(claims)})
      SELECT true AS answer, scope, key, NULL::text AS owner FROM answered
      UNION ALL SELECT false, scope, key, owner FROM claimed`.execute(db);
    for (const row of rows) {
      if (row.answer) answered.push(row);
      else claimed.push({ scope: row.scope, key: row.key, owner: row.owner as string });
    }
  }
  const owners = new Map(claimed.map((row) => [keyOf(row), row.owner]));
  const done = new Set(answered.map(keyOf));
  return work.map((w) =>
    w.claim ? owners.get(keyOf(w.claim)) === w.claim.owner : done.has(keyOf(w.answer)),
  );
}

// One batching queue per app (its group of queues) or, without one, per database handle. In the
// app's group its queue has the bounds of QUEUE_MAX_WAITING and QUEUE_MAX_WAIT_MS and counts in
// /readyz, the batch metrics and the webhooks' yield, as the other batches of the partner API do;
// without it, a keyed request waiting 2 s for its batch was refused with 503 whatever those said.
const batches = new WeakMap<object, Coalescer<KeyWork, boolean>>();
function batchesOf(db: Kysely<DB>, group: CoalescerGroup | undefined) {
  const owner = group ?? db;
  let found = batches.get(owner);
  if (found === undefined) {
    found = new Coalescer<KeyWork, boolean>({
      name: 'idempotency key',
      keyOf: workKey,
      run: (items) => keyBatch(db, items),
      group,
    });
    batches.set(owner, found);
  }
  return found;
}

export async function findKey(db: Kysely<DB>, scope: string, key: string): Promise<StoredKey | undefined> {
  return db
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
  group?: CoalescerGroup,
): Promise<boolean> {
  return batchesOf(db, group).submit({ answer: { scope, key, owner, answer } });
}

/** Lets the key go (its run ended in a 5xx): the next request with it runs afresh. */
export async function releaseKey(db: Kysely<DB>, scope: string, key: string, owner: string): Promise<void> {
  await db
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
