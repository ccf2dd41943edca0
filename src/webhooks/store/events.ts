// The data of each event type, built in SQL from the rows a statement changed (docs/webhooks.md has
// examples). Each builder answers a SELECT for webhookOutboxCte: partner_id, type, at, data.
import { sql } from 'kysely';
import type { Kysely, RawBuilder } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { isoUtc, partnerHasEndpoint, webhookOutboxCte } from './outbox.ts';

/**
 * An amount in base units as the API writes it (formatAmount in src/domain/amounts.ts): scaled by
 * the asset's decimals, no trailing zeros. Exact: multiplying numerics keeps every digit, and
 * '1e-<d>' is the numeric with d decimals 10^-d; trim_scale (PostgreSQL 13+) drops the zeros. (The
 * text-padding form this replaces evaluated the decimals as nested correlated sub-queries, about
 * 70 µs a row: most of the cost of writing a flash crowd's claim events, docs/performance.md.)
 */
export function scaledAmount(amount: RawBuilder<unknown>, assetId: RawBuilder<unknown>): RawBuilder<string> {
  return scaledAmountOf(amount, sql`(SELECT a.decimals FROM reward_assets a WHERE a.id = ${assetId})`);
}

/**
 * scaledAmount with the asset's decimals at hand (a joined column): the events join the asset and
 * the payout instead of asking correlated sub-queries, which Citus cannot plan over the rows a
 * statement changed (docs/scaling.md "On Citus").
 */
function scaledAmountOf(amount: RawBuilder<unknown>, decimals: RawBuilder<unknown>): RawBuilder<string> {
  return sql<string>`trim_scale(${amount}::numeric * ('1e-' || coalesce(${decimals}, 0))::numeric)::text`;
}

/**
 * claim.<status> events from rows of claims (alias `c` in `from`): each row's id, partner_id,
 * partner_uid, asset_id, amount, source, source_id, period_key, reason and `status` (the status it
 * moved to), with `at` the time of the move. A SUCCEEDED claim paid on chain carries its mined hash.
 */
export function claimEvents(from: RawBuilder<unknown>, status: RawBuilder<unknown>, at: RawBuilder<unknown>) {
  return sql`
    SELECT c.partner_id, 'claim.' || lower(${status}) AS type, ${at} AS at,
           jsonb_build_object(
             'claimId', c.id, 'partnerUid', c.partner_uid, 'status', ${status}, 'source', c.source,
             'sourceId', c.source_id, 'periodKey', c.period_key, 'assetId', c.asset_id,
             'amount', ${scaledAmountOf(sql`c.amount`, sql`ca.decimals`)}, 'reason', c.reason,
             'transactionHash', CASE WHEN ${status} = 'SUCCEEDED' THEN coalesce(cp.mined_tx_hash, cp.tx_hash) END
           ) AS data
    FROM ${from}
    LEFT JOIN reward_assets ca ON ca.id = c.asset_id
    LEFT JOIN chain_payouts cp ON cp.claim_id = c.id AND cp.status = 'CONFIRMED' AND ${status} = 'SUCCEEDED'`;
}

/** mission.completed from rows (alias `r` in `from`) with partner_id, partner_uid, mission_id, period_key, at. */
export function missionCompletedEvents(from: RawBuilder<unknown>) {
  return sql`
    SELECT r.partner_id, 'mission.completed' AS type, r.at AS at,
           jsonb_build_object(
             'partnerUid', r.partner_uid, 'missionId', r.mission_id,
             'missionKey', mk.mission_key,
             'periodKey', r.period_key, 'completedAt', ${isoUtc(sql`r.at`)}
           ) AS data
    FROM ${from}
    LEFT JOIN missions mk ON mk.id = r.mission_id`;
}

/** user.linked / user.unlinked from rows of user_mappings (alias `m` in `from`). */
export function userLinkEvents(from: RawBuilder<unknown>, type: 'user.linked' | 'user.unlinked', at: Date) {
  return sql`
    SELECT m.partner_id, ${type}::text AS type, ${at}::timestamptz AS at,
           jsonb_build_object('partnerUid', m.partner_uid, 'region', m.region,
                              'linkedAt', ${isoUtc(sql`m.created_at`)}) AS data
    FROM ${from}`;
}

/** draw.run, one per partner with tickets in the draw: its entries and its winners (after the tickets are marked). */
export function drawRunEvents(drawId: string, at: Date) {
  return sql`
    SELECT t.partner_id, 'draw.run' AS type, ${at}::timestamptz AS at,
           jsonb_build_object(
             'drawId', ${drawId}::text, 'budgetId', min(t.budget_id), 'entries', count(*),
             'winners', coalesce(jsonb_agg(jsonb_build_object('partnerUid', t.partner_uid, 'ticketId', t.id) ORDER BY t.id)
                                 FILTER (WHERE t.won), '[]'::jsonb)
           ) AS data
    FROM tickets t WHERE t.draw_id = ${drawId}
    GROUP BY t.partner_id`;
}

/** A completion for its mission.completed message: its partner user, mission, period and time (ISO). */
export interface CompletionMessage {
  partnerId: string;
  partnerUid: string;
  missionId: string;
  periodKey: string;
  at: string;
}

/** A report's completion as its message tells it (its time: the report's). */
export function completionMessageOf(r: Omit<CompletionMessage, 'at'> & { now: Date }): CompletionMessage {
  return {
    partnerId: r.partnerId,
    partnerUid: r.partnerUid,
    missionId: r.missionId,
    periodKey: r.periodKey,
    at: r.now.toISOString(),
  };
}

/**
 * Completions as rows (partner_id, partner_uid, mission_id, period_key, at) from the statement's
 * arrays, for missionCompletedEvents.
 */
export function completionRows(completed: readonly CompletionMessage[]) {
  const done = <T>(pick: (r: CompletionMessage) => T) => completed.map(pick);
  return sql`
    SELECT * FROM unnest(${done((r) => r.partnerId)}::text[], ${done((r) => r.partnerUid)}::text[],
                         ${done((r) => r.missionId)}::text[], ${done((r) => r.periodKey)}::text[],
                         ${done((r) => r.at)}::timestamptz[])
           AS r(partner_id, partner_uid, mission_id, period_key, at)`;
}

/**
 * The mission.completed messages of one partner's completions, when the partner has an enabled
 * endpoint (on Citus: the completing batch's routed path, progress/store.ts).
 */
export async function writeMissionCompletedMessages(
  trx: Kysely<DB>,
  partnerId: string,
  completed: readonly CompletionMessage[],
): Promise<void> {
  if (completed.length === 0 || !(await partnerHasEndpoint(trx, partnerId))) return;
  await sql`
    WITH ${webhookOutboxCte('completion_hooks', missionCompletedEvents(sql`(${completionRows(completed)}) r`))}
    SELECT 1`.execute(trx);
}
