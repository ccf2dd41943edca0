// What a payout provider reports back about REQUESTED claims (the ledger in payout/, the chain outbox
// in chain/): each is a claim transition (transitions.ts), the failure with its bounded retry time.
import type { Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import { retryDelayMs } from '../domain/claims.ts';
import { transitionClaims } from './transitions.ts';

/** REQUESTED -> FAILED with the provider's reason and the time of the next try (bounded: requeueFailed). */
export async function markClaimFailed(
  trx: Transaction<DB>,
  claim: { id: string; attempts: number },
  message: string,
  via: string,
  now: Date,
): Promise<void> {
  const attempts = claim.attempts + 1;
  await transitionClaims(
    trx,
    { ids: [claim.id] },
    {
      from: 'REQUESTED',
      to: 'FAILED',
      why: `${via}: ${message}`.slice(0, 200),
      at: now,
      reason: message.slice(0, 200),
      attempts,
      nextAttemptAt: new Date(now.getTime() + retryDelayMs(attempts)),
    },
  );
}

/** REQUESTED -> SUCCEEDED for claims paid by `via`, each with its history row, in one statement. */
export async function markClaimsSucceeded(
  trx: Transaction<DB>,
  ids: readonly string[],
  via: string,
  now: Date,
): Promise<void> {
  if (ids.length === 0) return;
  await transitionClaims(
    trx,
    { ids: [...ids] },
    { from: 'REQUESTED', to: 'SUCCEEDED', why: via, at: now, reason: null },
  );
}

/**
 * SUCCEEDED -> REQUESTED for chain claims whose transfer a reorg deeper than the confirmations removed
 * (docs/payout.md): their payout waits to be re-sent as the same signed transaction, and the claim is
 * SUCCEEDED again only when that is confirmed. Attempts are not counted: nothing failed.
 */
export async function reopenClaimsAfterReorg(
  trx: Transaction<DB>,
  ids: readonly string[],
  why: string,
  now: Date,
): Promise<string[]> {
  if (ids.length === 0) return [];
  return transitionClaims(
    trx,
    { ids: [...ids] },
    {
      from: 'SUCCEEDED',
      to: 'REQUESTED',
      why: why.slice(0, 200),
      at: now,
      reason: why.slice(0, 200),
      reorg: true,
    },
  );
}
