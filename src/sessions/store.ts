// SQL of end-user sessions (user_sessions): one row per signed-in browser, keyed by the SHA-256 of
// the session id its cookie carries.
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';

export async function insertSession(
  db: Kysely<DB>,
  row: { idHash: string; accountId: string; createdAt: Date; expiresAt: Date },
): Promise<void> {
  await db
    .insertInto('user_sessions')
    .values({
      id_hash: row.idHash,
      account_id: row.accountId,
      created_at: row.createdAt,
      expires_at: row.expiresAt,
    })
    .execute();
}

/** The account of a live session: one indexed read, so a revocation is seen by the next request. */
export async function findLiveSession(
  db: Kysely<DB>,
  idHash: string,
  now: Date,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('user_sessions')
    .select('account_id')
    .where('id_hash', '=', idHash)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row?.account_id;
}

export async function deleteSession(db: Kysely<DB>, idHash: string): Promise<void> {
  await db.deleteFrom('user_sessions').where('id_hash', '=', idHash).execute();
}

/** Ends every session of an account; answers how many there were. */
export async function deleteSessionsOfAccount(db: Kysely<DB>, accountId: string): Promise<number> {
  const result = await db.deleteFrom('user_sessions').where('account_id', '=', accountId).executeTakeFirst();
  return Number(result.numDeletedRows);
}
