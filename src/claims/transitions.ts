// The one way a claim changes status: the move is checked against the rule table
// (domain/claims.ts) and the update and its history row are written in ONE statement, so no crash
// can leave a status without its history (or history without its status), nor without the
// webhook messages that report it (src/webhooks/store/outbox.ts).
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { canMove, REORG_REOPEN } from '../domain/claims.ts';
import type { ClaimStatus } from '../domain/claims.ts';
import { moveClaimsStatement } from './transition-store.ts';
import type { ClaimMove, ClaimSelection } from './transition-store.ts';

export type { ClaimMove, ClaimSelection } from './transition-store.ts';

/** A move the rule table does not allow is a bug in the caller, not an answer to a request. */
export class IllegalClaimMove extends Error {
  constructor(from: ClaimStatus, to: ClaimStatus) {
    super(`a ${from} claim cannot become ${to}`);
    this.name = 'IllegalClaimMove';
  }
}

/**
 * Moves the selected claims that are in `move.from` to `move.to` and writes one history row per
 * moved claim, in one statement (an UPDATE ... RETURNING feeding the INSERT INTO claim_events).
 * A claim no longer in `from` (another worker or request moved it) is left alone. Answers the ids
 * moved. Runs on the caller's connection or transaction: no extra round trip.
 */
export async function transitionClaims(
  db: Kysely<DB>,
  selection: ClaimSelection,
  move: ClaimMove,
): Promise<string[]> {
  const reopen = move.reorg === true && move.from === REORG_REOPEN.from && move.to === REORG_REOPEN.to;
  if (!canMove(move.from, move.to) && !reopen) throw new IllegalClaimMove(move.from, move.to);
  if ('ids' in selection && selection.ids.length === 0) return [];
  return moveClaimsStatement(db, selection, move);
}
