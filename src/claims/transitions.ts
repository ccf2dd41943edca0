// The one way a claim changes status: the move is checked against the rule table
// (domain/claims.ts) and the update and its history row are written in ONE statement, so no crash
// can leave a status without its history (or history without its status), nor without the
// webhook messages that report it (src/webhooks/outbox.ts).
import { sql } from 'kysely';
import type { Kysely, RawBuilder } from 'kysely';
import type { DB } from '../db/schema.ts';
import { prepared } from '../db/connection.ts';
import { canMove } from '../domain/claims.ts';
import { webhookOutboxCte } from '../webhooks/outbox.ts';
import { claimEvents } from '../webhooks/events.ts';
import type { ClaimStatus } from '../domain/claims.ts';

/** Which claims to move: by id, or by a condition on the claim row `c` (for set-based upkeep). */
export type ClaimSelection = { ids: readonly string[] } | { where: RawBuilder<boolean> };

export interface ClaimMove {
  from: ClaimStatus;
  to: ClaimStatus;
  /** The history row's reason (why the claim moved). */
  why: string | null;
  at: Date;
  /** The claim's own `reason` column (a refusal or the last payout error); left as it is when undefined. */
  reason?: string | null;
  attempts?: number;
  nextAttemptAt?: Date | null;
  /** Sets the claim's account: this one, or from its user's link (the user has just linked). */
  account?: string | 'FROM_LINK';
}

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
  if (!canMove(move.from, move.to)) throw new IllegalClaimMove(move.from, move.to);
  if ('ids' in selection && selection.ids.length === 0) return [];
  const sets: RawBuilder<unknown>[] = [sql`status = ${move.to}`, sql`updated_at = ${move.at}::timestamptz`];
  if (move.reason !== undefined) sets.push(sql`reason = ${move.reason}::text`);
  if (move.attempts !== undefined) sets.push(sql`attempts = ${move.attempts}::int`);
  if (move.nextAttemptAt !== undefined) sets.push(sql`next_attempt_at = ${move.nextAttemptAt}::timestamptz`);
  if (move.account === 'FROM_LINK') {
    sets.push(sql`account_id = (SELECT m.account_id FROM user_mappings m
                                WHERE m.partner_id = c.partner_id AND m.partner_uid = c.partner_uid)`);
  } else if (move.account !== undefined) {
    sets.push(sql`account_id = ${move.account}::text`);
  }
  const which =
    'ids' in selection ? sql<boolean>`c.id = ANY(${[...selection.ids]}::text[])` : selection.where;
  const query = sql<{ id: string }>`
    WITH moved AS (
      UPDATE claims c SET ${sql.join(sets)}
      WHERE ${which} AND c.status = ${move.from}
      RETURNING c.id, c.partner_id, c.partner_uid, c.asset_id, c.amount, c.source, c.source_id, c.period_key, c.reason
    ), history AS (
      INSERT INTO claim_events (claim_id, from_status, to_status, reason, at)
      SELECT id, ${move.from}::text, ${move.to}::text, ${move.why}::text, ${move.at}::timestamptz FROM moved ORDER BY id
    ), ${webhookOutboxCte('hooks', claimEvents(sql`(SELECT * FROM moved ORDER BY id) c`, sql`${move.to}::text`, sql`${move.at}::timestamptz`))}
    SELECT id FROM moved`;
  // The text varies only with the caller's shape of move (a handful), never with the input.
  const name = `claims_move_${move.from}_${move.to}`.toLowerCase();
  return (await db.executeQuery(prepared(name, query.compile(db)))).rows.map((r) => r.id);
}
