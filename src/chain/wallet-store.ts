// The SQL of users' wallets (user-wallets.ts): SIWE challenges, the wallet an account has bound and
// the history of its bindings, and the network a challenge is issued for.
import { sql } from 'kysely';
import type { Insertable, Kysely, Transaction } from 'kysely';
import type { DB, SiweChallengesTable, UserWalletEventsTable, UserWalletsTable } from '../db/schema.ts';

/** The first network configured (on `chainId` when given), or undefined. */
export function firstNetwork(db: Kysely<DB>, chainId: number | undefined) {
  let query = db.selectFrom('chain_networks').selectAll().orderBy('created_at').limit(1);
  if (chainId !== undefined) query = query.where('chain_id', '=', chainId);
  return query.executeTakeFirst();
}

/** The chain id of the first network configured, or undefined. */
export function firstNetworkChainId(db: Kysely<DB>) {
  return db.selectFrom('chain_networks').select('chain_id').orderBy('created_at').limit(1).executeTakeFirst();
}

/** Serialises issuing for one account, and for one address, across processes. */
export async function lockChallengeIssuing(
  trx: Transaction<DB>,
  accountId: string,
  lowerAddress: string,
): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`siwe-account:${accountId}`}, 0))`.execute(trx);
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`siwe-address:${lowerAddress}`}, 0))`.execute(
    trx,
  );
}

const liveChallenges = (trx: Transaction<DB>, now: Date) =>
  trx.selectFrom('siwe_challenges').where('expires_at', '>', now).where('used_at', 'is', null);

/** How many live challenges other accounts hold for this address. */
export function liveChallengesOfOthers(
  trx: Transaction<DB>,
  now: Date,
  lowerAddress: string,
  accountId: string,
) {
  return liveChallenges(trx, now)
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('address', '=', lowerAddress)
    .where('account_id', '<>', accountId)
    .executeTakeFirstOrThrow();
}

/** The account's live challenges after its newest `keep` (newest first). */
export function ownLiveChallengesBeyond(trx: Transaction<DB>, now: Date, accountId: string, keep: number) {
  return liveChallenges(trx, now)
    .select('nonce')
    .where('account_id', '=', accountId)
    .orderBy('created_at', 'desc')
    .orderBy('nonce')
    .offset(keep)
    .limit(1000)
    .execute();
}

export async function deleteChallenges(trx: Transaction<DB>, nonces: string[]): Promise<void> {
  if (nonces.length === 0) return;
  await trx.deleteFrom('siwe_challenges').where('nonce', 'in', nonces).execute();
}

export async function insertChallenge(
  trx: Transaction<DB>,
  row: Insertable<SiweChallengesTable>,
): Promise<void> {
  await trx.insertInto('siwe_challenges').values(row).execute();
}

/** Deletes up to `limit` challenges past their expiry; answers how many. */
export async function deleteExpiredChallenges(db: Kysely<DB>, now: Date, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('siwe_challenges')
    .where('nonce', 'in', (eb) =>
      eb.selectFrom('siwe_challenges').select('nonce').where('expires_at', '<', now).limit(limit),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

export function findChallenge(db: Kysely<DB>, nonce: string) {
  return db.selectFrom('siwe_challenges').selectAll().where('nonce', '=', nonce).executeTakeFirst();
}

/** Marks the challenge used unless it already is (single use even when two binds race). */
export function useChallenge(trx: Transaction<DB>, nonce: string, now: Date) {
  return trx
    .updateTable('siwe_challenges')
    .set({ used_at: now })
    .where('nonce', '=', nonce)
    .where('used_at', 'is', null)
    .returning('nonce')
    .executeTakeFirst();
}

/** The account's bound wallet, locked FOR UPDATE. */
export function lockUserWallet(trx: Transaction<DB>, accountId: string) {
  return trx
    .selectFrom('user_wallets')
    .select('address')
    .where('account_id', '=', accountId)
    .forUpdate()
    .executeTakeFirst();
}

/** Binds the account's wallet, replacing the one it had. */
export async function upsertUserWallet(
  trx: Transaction<DB>,
  row: Insertable<UserWalletsTable>,
): Promise<void> {
  const { address, chain_id, bound_at } = row;
  await trx
    .insertInto('user_wallets')
    .values(row)
    .onConflict((oc) => oc.column('account_id').doUpdateSet({ address, chain_id, bound_at }))
    .execute();
}

export async function insertWalletEvent(
  trx: Transaction<DB>,
  row: Insertable<UserWalletEventsTable>,
): Promise<void> {
  await trx.insertInto('user_wallet_events').values(row).execute();
}

export function findUserWallet(db: Kysely<DB>, accountId: string) {
  return db.selectFrom('user_wallets').selectAll().where('account_id', '=', accountId).executeTakeFirst();
}
