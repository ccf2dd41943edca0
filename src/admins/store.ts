// The SQL of operator credentials and of the development first sign-in's one-time code.
import { sql } from 'kysely';
import type { Insertable, Kysely, Selectable, Transaction } from 'kysely';
import type { AdminCredentialsTable, AdminFirstSignInsTable, DB } from '../db/schema.ts';

type Db = Kysely<DB> | Transaction<DB>;

export type AdminRow = Selectable<AdminCredentialsTable>;

/** A live (not revoked) credential by its secret's hash. */
export function liveCredentialBySecretHash(db: Kysely<DB>, secretHash: string) {
  return db
    .selectFrom('admin_credentials')
    .select(['id', 'role'])
    .where('secret_hash', '=', secretHash)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
}

/** Any credential by its secret's hash, revoked or not (it must exist). */
export function credentialBySecretHash(db: Kysely<DB>, secretHash: string) {
  return db
    .selectFrom('admin_credentials')
    .select(['id', 'role', 'revoked_at'])
    .where('secret_hash', '=', secretHash)
    .executeTakeFirstOrThrow();
}

export function insertCredential(db: Db, row: Insertable<AdminCredentialsTable>): Promise<AdminRow> {
  return db.insertInto('admin_credentials').values(row).returningAll().executeTakeFirstOrThrow();
}

/** Inserts the credential unless one with its secret exists (one statement: only one insert wins). */
export function insertCredentialUnlessSecretExists(db: Kysely<DB>, row: Insertable<AdminCredentialsTable>) {
  return db
    .insertInto('admin_credentials')
    .values(row)
    .onConflict((oc) => oc.column('secret_hash').doNothing())
    .returning('id')
    .executeTakeFirst();
}

/** Every credential, oldest first. */
export function credentialRows(db: Kysely<DB>): Promise<AdminRow[]> {
  return db.selectFrom('admin_credentials').selectAll().orderBy('created_at').orderBy('id').execute();
}

export function findCredential(db: Db, id: string): Promise<AdminRow | undefined> {
  return db.selectFrom('admin_credentials').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The live OWNER credentials, locked FOR UPDATE. */
export function lockLiveOwners(trx: Transaction<DB>) {
  return trx
    .selectFrom('admin_credentials')
    .select('id')
    .where('role', '=', 'OWNER')
    .where('revoked_at', 'is', null)
    .forUpdate()
    .execute();
}

export async function markRevoked(trx: Transaction<DB>, id: string, at: Date): Promise<void> {
  await trx.updateTable('admin_credentials').set({ revoked_at: at }).where('id', '=', id).execute();
}

/** Whether any operator credential exists at all (revoked ones too). */
export async function anyCredential(db: Db): Promise<boolean> {
  return (await db.selectFrom('admin_credentials').select('id').limit(1).executeTakeFirst()) !== undefined;
}

/** The new one-time code, replacing every earlier one. */
export async function replaceFirstSignIn(
  trx: Transaction<DB>,
  row: Insertable<AdminFirstSignInsTable>,
): Promise<void> {
  await trx.deleteFrom('admin_first_sign_ins').execute();
  await trx.insertInto('admin_first_sign_ins').values(row).execute();
}

/** Serialises the use of first sign-in codes (two tabs using the same code at once: one wins). */
export async function lockFirstSignIn(trx: Transaction<DB>): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtextextended('admin-first-sign-in', 0))`.execute(trx);
}

/** Marks the code used if it is unused and unexpired; undefined otherwise. */
export function useFirstSignInCode(trx: Transaction<DB>, codeHash: string, now: Date) {
  return trx
    .updateTable('admin_first_sign_ins')
    .set({ used_at: now })
    .where('code_hash', '=', codeHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('code_hash')
    .executeTakeFirst();
}
