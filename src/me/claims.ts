// The signed-in user's claims for the mission page: the claims capability's listing, with the chain
// transaction of each claim paid on a chain (chain/claim-transactions.ts).
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { listClaims } from '../claims/service.ts';
import type { ClaimFilter } from '../claims/service.ts';
import { withChainTransactions } from '../chain/claim-transactions.ts';

/** The account's claims (newest first, `limit` of them), each with its chain transaction. */
export async function myClaims(db: Kysely<DB>, filter: ClaimFilter & { accountId: string }, limit: number) {
  return withChainTransactions(db, await listClaims(db, filter, limit, 0));
}
