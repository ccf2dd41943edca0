// The webhook outbox (docs/webhooks.md "The outbox"). On the write path, a CTE that turns the rows a
// statement changed into its messages, one per enabled endpoint subscribed to the event, in the SAME
// statement, so a change and its messages commit or roll back together: written as one outbox row
// per partner (migration 0048), not a row per message. Before each delivery round the rows become
// webhook_messages (fanOutOutbox), each exactly once. With no enabled endpoint anywhere, a one-time
// check (an InitPlan) skips the rest: partners without webhooks pay one index probe per statement.
import { sql } from 'kysely';
import type { Kysely, RawBuilder } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { WEBHOOK_EVENT_TYPES } from '../event-types.ts';

/** ISO 8601 in UTC with milliseconds, as JavaScript's toISOString writes it. */
export function isoUtc(column: RawBuilder<unknown>): RawBuilder<string> {
  return sql<string>`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

/**
 * The CTE `<name> AS (INSERT INTO webhook_outbox ...)`. `events` is a SELECT with the columns
 * partner_id, type (an event type), at (timestamptz) and data (jsonb); it is read only when some
 * endpoint is enabled, and each event becomes one message per enabled endpoint of its partner that
 * subscribed to its type: one outbox row per partner, the messages' endpoints, types and times as
 * arrays and their data as a JSON array, in the same order (one aggregate node feeds every
 * aggregate the same rows). A row and three index entries a message cost a flash crowd's
 * completion 3.0 kB of WAL for its three messages; its part of an outbox row is about 0.4 kB
 * (docs/performance.md, "Nineteenth round").
 */
export function webhookOutboxCte(name: string, events: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`${sql.raw(name)} AS (
    INSERT INTO webhook_outbox (partner_id, created_at, endpoint_ids, event_types, event_times, data)
    SELECT ev.partner_id, min(ev.at), array_agg(e.id), array_agg(ev.type), array_agg(ev.at), jsonb_agg(ev.data)
    -- The check sits inside the derived table: Citus refuses a sub-query in the WHERE of a query
    -- whose FROM holds one (docs/scaling.md "On Citus"); PostgreSQL plans it the same (a one-time filter).
    FROM (SELECT * FROM (${events}) ev0 WHERE EXISTS (SELECT 1 FROM webhook_endpoints WHERE enabled)) ev
    JOIN webhook_endpoints e ON e.partner_id = ev.partner_id AND e.enabled AND ev.type = ANY (e.events)
    GROUP BY ev.partner_id
  )`;
}

/**
 * Turns the outbox's rows into messages: the oldest first, across partners, at most `maxRows` rows;
 * with `dueBy`, only rows whose first event is that old (a worker yielding to the partner API,
 * delivery-yield.ts, makes only the messages it may send). Partner by partner, each partner's rows
 * deleted and their messages inserted by one statement (on Citus one shard's, docs/scaling.md "On
 * Citus"), rows another worker holds skipped: each row becomes its messages exactly once, whoever
 * crashes when. Answers how many rows it turned.
 *
 * A partner whose rows cannot become messages (a bug: an event type the table refuses, say) keeps
 * them whole and holds back only its own webhooks, in their order: the other partners' rows are
 * turned all the same. Its error goes to `onPartnerError`; without one, the first such error is
 * thrown once the others are done. `skipPartners` are passed over (StuckOutboxPartners), so that
 * the rows piling up behind such a row do not fill the oldest `maxRows` and starve the others.
 */
export async function fanOutOutbox(
  db: Kysely<DB>,
  options: {
    dueBy?: Date;
    maxRows: number;
    partnerId?: string;
    skipPartners?: readonly string[];
    onPartnerError?: (partnerId: string, error: unknown) => void;
  },
): Promise<number> {
  const dueBy = options.dueBy?.toISOString() ?? 'infinity';
  const skip = options.skipPartners ?? [];
  const partners =
    options.partnerId !== undefined
      ? [options.partnerId].filter((id) => !skip.includes(id))
      : (await outboxPartners(dueBy, options.maxRows, skip).execute(db)).rows.map((row) => row.partner_id);
  let turned = 0;
  const failed: unknown[] = [];
  for (const partnerId of partners) {
    if (turned >= options.maxRows) break;
    try {
      const { rows } = await fanOutPartner(partnerId, dueBy, options.maxRows - turned).execute(db);
      turned += rows[0]?.turned ?? 0;
    } catch (error) {
      if (options.onPartnerError) options.onPartnerError(partnerId, error);
      else failed.push(error);
    }
  }
  if (failed.length > 0) throw failed[0];
  return turned;
}

/** The partners of the oldest outbox rows but those of `skip` (no lock), the oldest first. */
function outboxPartners(dueBy: string, limit: number, skip: readonly string[]) {
  return sql<{ partner_id: string }>`
    SELECT partner_id FROM (
      SELECT o.partner_id, o.created_at FROM webhook_outbox o
      WHERE o.created_at <= ${dueBy}::timestamptz
        ${skip.length > 0 ? sql`AND o.partner_id <> ALL (${[...skip]}::text[])` : sql``}
      ORDER BY o.created_at LIMIT ${limit}
    ) oldest
    GROUP BY partner_id ORDER BY min(created_at), partner_id`;
}

/**
 * One partner's oldest outbox rows, deleted, and their messages, inserted in writing order (their
 * seq). A message is what webhookOutboxCte's statement wrote before migration 0048: its id the
 * time in ms (12 hex digits) and a v4 UUID's last 20, so the primary key grows at its right edge
 * (docs/performance.md, "Seventh round"); its payload Standard Webhooks' {type, timestamp, data};
 * due, and created, at its event's time.
 */
function fanOutPartner(partnerId: string, dueBy: string, limit: number) {
  return sql<{ turned: number }>`
    WITH picked AS (
      SELECT o.id FROM webhook_outbox o
      WHERE o.partner_id = ${partnerId} AND o.created_at <= ${dueBy}::timestamptz
      ORDER BY o.id LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    ), taken AS (
      DELETE FROM webhook_outbox o USING picked
      WHERE o.partner_id = ${partnerId} AND o.id = picked.id
      RETURNING o.id, o.endpoint_ids, o.event_types, o.event_times, o.data
    ), made AS (
      INSERT INTO webhook_messages (id, endpoint_id, partner_id, event_type, rank, payload, status, next_attempt_at, created_at)
      SELECT 'msg_' || lpad(to_hex((extract(epoch FROM now()) * 1000)::bigint), 12, '0')
                    || substr(replace(gen_random_uuid()::text, '-', ''), 13), m.endpoint_id, ${partnerId}, m.type,
             r.rank, jsonb_build_object('type', m.type, 'timestamp', ${isoUtc(sql`m.at`)}, 'data', m.data),
             'PENDING', m.at, m.at
      FROM taken t
      CROSS JOIN LATERAL ROWS FROM (unnest(t.endpoint_ids), unnest(t.event_types), unnest(t.event_times),
                                   jsonb_array_elements(t.data)) WITH ORDINALITY AS m(endpoint_id, type, at, data, n)
      CROSS JOIN LATERAL (SELECT array_position(${[...WEBHOOK_EVENT_TYPES]}::text[], m.type) AS rank) r
      -- In each row's event order: by time, then lifecycle (mission.completed before claim.reserved
      -- before claim.requested), then as written (an aggregate's rows may come sorted by partner).
      ORDER BY t.id, m.at, r.rank, m.n
    )
    SELECT count(*)::int AS turned FROM taken`;
}

/**
 * The partners whose outbox rows a worker could not turn into messages (fanOutOutbox): each passed
 * over for `retryMs`, then tried again; each failure told to `report` (so at most once a `retryMs`
 * per partner: a log line, not one a round). Kept in the worker's memory on purpose: nothing is
 * lost if it is forgotten (the rows stay in the table), and each worker finds the row on its own.
 */
export class StuckOutboxPartners {
  readonly #until = new Map<string, number>();
  readonly #retryMs: number;
  readonly #report: (partnerId: string, error: unknown, retryMs: number) => void;
  readonly #now: () => number;

  constructor(options: {
    retryMs: number;
    report: (partnerId: string, error: unknown, retryMs: number) => void;
    now?: () => number;
  }) {
    this.#retryMs = options.retryMs;
    this.#report = options.report;
    this.#now = options.now ?? (() => performance.now());
  }

  /** The partners to pass over now. */
  skip(): string[] {
    const now = this.#now();
    for (const [partnerId, until] of this.#until) if (until <= now) this.#until.delete(partnerId);
    return [...this.#until.keys()];
  }

  failed(partnerId: string, error: unknown): void {
    this.#until.set(partnerId, this.#now() + this.#retryMs);
    this.#report(partnerId, error, this.#retryMs);
  }
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
