// The webhook outbox on the write path: a CTE that turns the rows a statement changed into one
// message per enabled endpoint subscribed to the event, in the SAME statement, so a change and its
// messages commit or roll back together. With no enabled endpoint anywhere, a one-time check
// (an InitPlan) skips the rest: partners without webhooks pay one index probe per statement.
import { sql } from 'kysely';
import type { Kysely, RawBuilder } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { WEBHOOK_EVENT_TYPES } from '../event-types.ts';

/** ISO 8601 in UTC with milliseconds, as JavaScript's toISOString writes it. */
export function isoUtc(column: RawBuilder<unknown>): RawBuilder<string> {
  return sql<string>`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

/**
 * The CTE `<name> AS (INSERT INTO webhook_messages ...)`. `events` is a SELECT with the columns
 * partner_id, type (an event type), at (timestamptz) and data (jsonb); it is read only when some
 * endpoint is enabled, and each event becomes one message per enabled endpoint of its partner
 * that subscribed to its type. The payload is Standard Webhooks' {type, timestamp, data}. The id
 * is 'msg_' and 32 hex digits laid out as a UUIDv7's: the statement's time in ms (12), then a v4
 * UUID's last 20 (74 random bits), so the primary key grows at its right edge instead of dirtying
 * a random page per message (docs/performance.md, "Seventh round": the flash crowd writing its
 * messages ran at a median 0.81x of the crowd without, against 0.75x with random ids).
 */
export function webhookOutboxCte(name: string, events: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`${sql.raw(name)} AS (
    INSERT INTO webhook_messages (id, endpoint_id, partner_id, event_type, rank, payload, status, next_attempt_at, created_at)
    SELECT 'msg_' || lpad(to_hex((extract(epoch FROM now()) * 1000)::bigint), 12, '0')
                  || substr(replace(gen_random_uuid()::text, '-', ''), 13), e.id, ev.partner_id, ev.type,
           array_position(${[...WEBHOOK_EVENT_TYPES]}::text[], ev.type),
           jsonb_build_object('type', ev.type, 'timestamp', ${isoUtc(sql`ev.at`)}, 'data', ev.data),
           'PENDING', ev.at, ev.at
    -- The check sits inside the derived table: Citus refuses a sub-query in the WHERE of a query
    -- whose FROM holds one (docs/scaling.md "On Citus"); PostgreSQL plans it the same (a one-time filter).
    FROM (SELECT * FROM (${events}) ev0 WHERE EXISTS (SELECT 1 FROM webhook_endpoints WHERE enabled)) ev
    JOIN webhook_endpoints e ON e.partner_id = ev.partner_id AND e.enabled AND ev.type = ANY (e.events)
  )`;
}

/**
 * Whether the partner has an enabled endpoint: on Citus the routed writers (claims/routed-claims-
 * store.ts, progress/store.ts) write a batch's messages, a statement of CTEs and there sub-plans,
 * only when someone is there to be told.
 */
export async function partnerHasEndpoint(trx: Kysely<DB>, partnerId: string): Promise<boolean> {
  const endpoint = await trx
    .selectFrom('webhook_endpoints')
    .select('id')
    .where('partner_id', '=', partnerId)
    .where('enabled', '=', true)
    .limit(1)
    .executeTakeFirst();
  return endpoint !== undefined;
}
