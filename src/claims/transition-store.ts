// The one statement that changes claims' status (transitions.ts checks the move against the rule
// table first): the update, its history rows and its webhook messages, in ONE statement.
import { sql } from 'kysely';
import type { Kysely, RawBuilder } from 'kysely';
import type { DB } from '../db/schema.ts';
import { prepared } from '../db/connection.ts';
import { webhookOutboxCte } from '../webhooks/store/outbox.ts';
import { claimEvents } from '../webhooks/store/events.ts';
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
  /**
   * Sets the claim's account: this one for every claim, or each claim's own by claim id (the
   * accounts of users who have just linked, read by the caller from their links: an update of
   * claims may not join the mappings on Citus, docs/scaling.md "On Citus").
   */
  account?: string | ReadonlyMap<string, string>;
  /** The chain payout re-opens a claim whose transfer a deep reorg removed (REORG_REOPEN, never an operator). */
  reorg?: true;
}

/**
 * One statement: moves the selected claims that are in `move.from` to `move.to` (an UPDATE ...
 * RETURNING feeding the INSERT INTO claim_events and the webhook outbox); answers the ids moved.
 */
export async function moveClaimsStatement(
  db: Kysely<DB>,
  selection: ClaimSelection,
  move: ClaimMove,
): Promise<string[]> {
  const sets: RawBuilder<unknown>[] = [sql`status = ${move.to}`, sql`updated_at = ${move.at}::timestamptz`];
  if (move.reason !== undefined) sets.push(sql`reason = ${move.reason}::text`);
  if (move.attempts !== undefined) sets.push(sql`attempts = ${move.attempts}::int`);
  if (move.nextAttemptAt !== undefined) sets.push(sql`next_attempt_at = ${move.nextAttemptAt}::timestamptz`);
  if (move.account instanceof Map) {
    // One jsonb object {claim id: account}: an immutable lookup, which Citus runs on every copy.
    const byClaim = JSON.stringify(Object.fromEntries(move.account));
    sets.push(sql`account_id = (${byClaim}::jsonb ->> c.id)`);
  } else if (typeof move.account === 'string') {
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
      INSERT INTO claim_events (partner_id, claim_id, from_status, to_status, reason, at)
      SELECT partner_id, id, ${move.from}::text, ${move.to}::text, ${move.why}::text, ${move.at}::timestamptz FROM moved ORDER BY id
    ), ${webhookOutboxCte('hooks', claimEvents(sql`(SELECT * FROM moved ORDER BY id) c`, sql`${move.to}::text`, sql`${move.at}::timestamptz`))}
    SELECT id FROM moved`;
  // The text varies only with the caller's shape of move (a handful), never with the input.
  const name = `claims_move_${move.from}_${move.to}`.toLowerCase();
  return (await db.executeQuery(prepared(name, query.compile(db)))).rows.map((r) => r.id);
}
