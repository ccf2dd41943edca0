// The rewards capability as the rest of the service sees it: the achieve CompletionHandler, the
// link handler for connect, the worker, and the payout provider interface.
import type { Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import { releaseWaitingClaims } from './claims.ts';

export { onMissionCompleted } from './claims.ts';
export { ledgerProvider, runPayoutBatch, startPayoutWorker } from './payout.ts';
export type { PayableClaim, PayoutProvider } from './payout.ts';
export { requestClaimsOfLinkedUsers } from './link-sweep.ts';

/**
 * Call inside the connect transaction when a partner user links to a platform account: the user's
 * claims get the account, and those waiting in RESERVED become REQUESTED for payout.
 */
export function onUserLinked(
  trx: Transaction<DB>,
  e: { partnerId: string; partnerUid: string; accountId: string },
  now: Date = new Date(),
): Promise<void> {
  return releaseWaitingClaims({ now: () => now })(trx, e);
}
