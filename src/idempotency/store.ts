// SQL of the idempotency keys: claim a key (or learn who holds it), record the answer, let go.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
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
 * number of processes claiming together, exactly one gets a row back.
 */
export async function claimKey(db: Kysely<DB>, claim: KeyClaim): Promise<boolean> {
  const row = await idempotencyDb(db)
    .insertInto('idempotency_keys')
    .values({
      scope: claim.scope,
      key: claim.key,
      fingerprint: claim.fingerprint,
      state: 'RUNNING',
      owner: claim.owner,
      locked_until: claim.lockedUntil,
      created_at: claim.now,
      expires_at: claim.expiresAt,
    })
    .onConflict((oc) =>
      oc
        .columns(['scope', 'key'])
        .doUpdateSet({
          fingerprint: (eb) => eb.ref('excluded.fingerprint'),
          state: 'RUNNING',
          owner: (eb) => eb.ref('excluded.owner'),
          locked_until: (eb) => eb.ref('excluded.locked_until'),
          created_at: (eb) => eb.ref('excluded.created_at'),
          expires_at: (eb) => eb.ref('excluded.expires_at'),
          response_status: null,
          response_headers: null,
          response_body: null,
        })
        .where((eb) =>
          eb.or([
            eb('idempotency_keys.expires_at', '<=', claim.now),
            eb.and([
              eb('idempotency_keys.state', '=', 'RUNNING'),
              eb('idempotency_keys.locked_until', '<=', claim.now),
              eb('idempotency_keys.fingerprint', '=', eb.ref('excluded.fingerprint')),
            ]),
          ]),
        ),
    )
    .returning('owner')
    .executeTakeFirst();
  return row !== undefined;
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

/** Stores the answer of the run that holds the key; false when it no longer holds it. */
export async function recordAnswer(
  db: Kysely<DB>,
  scope: string,
  key: string,
  owner: string,
  answer: { status: number; headers: Record<string, string>; body: string | null },
): Promise<boolean> {
  const result = await idempotencyDb(db)
    .updateTable('idempotency_keys')
    .set({
      state: 'DONE',
      response_status: answer.status,
      response_headers: JSON.stringify(answer.headers),
      response_body: answer.body,
    })
    .where('scope', '=', scope)
    .where('key', '=', key)
    .where('owner', '=', owner)
    .where('state', '=', 'RUNNING')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
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
