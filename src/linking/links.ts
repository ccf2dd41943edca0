// The links as they stand: the signed-in account's, a partner user's for operators, unlinking, and
// which partner users are linked (for other capabilities). The linking journey is service.ts.
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import { mappingNotFound, userUnauthorized } from '../error-factories.ts';
import { getPartner } from '../partners/service.ts';
import { linkedUserView } from './find-users.ts';
import * as store from './store.ts';

/** The signed-in account and its linked partner users; a session of an account gone is no session. */
export async function signedInAccount(db: Kysely<DB>, accountId: string) {
  const found = await store.findAccountWithMappings(db, accountId);
  if (!found) throw userUnauthorized();
  return found;
}

/** A partner user's mapping with its platform account (operators). */
export async function mappingWithAccount(db: Kysely<DB>, partnerId: string, partnerUid: string) {
  await getPartner(db, partnerId);
  const row = await store.findMappingWithAccount(db, partnerId, partnerUid);
  if (!row) throw mappingNotFound(partnerUid);
  return linkedUserView(row);
}

/** Unlinks a partner user (with its user.unlinked webhook messages); the removed mapping's account id. */
export async function unlink(db: Kysely<DB>, clock: Clock, partnerId: string, partnerUid: string) {
  await getPartner(db, partnerId);
  const removed = await store.deleteMapping(db, partnerId, partnerUid, clock.now());
  if (!removed) throw mappingNotFound(partnerUid);
  return { accountId: removed.account_id };
}

/**
 * Which of these partner users are linked, in order: for another capability (claims' reservation
 * expiry), which reads the links through this service rather than linking's store.
 */
export function linkedUsers(
  db: Kysely<DB> | Transaction<DB>,
  users: readonly store.PartnerUser[],
): Promise<boolean[]> {
  return store.linkedAmong(db, users);
}
