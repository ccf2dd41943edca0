// The SQL of webhook delivery: leasing a round's due messages, and recording the round's attempts
// and their messages' new states (delivery.ts is the worker that sends them).
import { sql } from 'kysely';
import type { Kysely, RawBuilder } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { lockPartnerByPartner, onCitusCoordinator } from '../../db/citus.ts';

/** A leased message with what its delivery needs: the endpoint's URL and secrets. */
export interface Leased {
  id: string;
  partner_id: string;
  endpoint_id: string;
  payload: unknown;
  attempts: number;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
}

/** What one POST answered. */
export interface Outcome {
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

/** One delivery attempt and the state it moves its message to. */
export interface Attempt {
  id: string;
  partnerId: string;
  at: Date;
  outcome: Outcome;
  status: 'DELIVERED' | 'FAILED' | 'PENDING';
  attempts: number;
  error: string | null;
  nextAttemptAt: Date;
  deliveredAt: Date | null;
}

/**
 * A message (alias `m`) a round may take at `now`: PENDING, its due time come, and no lease holding
 * it (migration 0047). Every read of a round's messages asks this one condition.
 */
function takeableAt(now: Date): RawBuilder<unknown> {
  return sql`m.status = 'PENDING' AND m.next_attempt_at <= ${now}::timestamptz
    AND (m.leased_until IS NULL OR m.leased_until <= ${now}::timestamptz)`;
}

/**
 * A message (alias `m`) of one of `partner`'s enabled endpoints: the endpoints read first, once (an
 * InitPlan), and the messages kept as they come off the index (see leasePartnerMessages).
 */
function ofEnabledEndpoint(partner: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`m.endpoint_id = ANY (ARRAY(SELECT e.id FROM webhook_endpoints e WHERE e.partner_id = ${partner} AND e.enabled))`;
}

/**
 * Leases a round's messages: up to `batchSize` due ones, earliest due first, then event order,
 * held by a lease (`leased_until`) until `lease` so no other worker takes them meanwhile: a HOT
 * update, the due time and every index left as they are (migration 0047). Partner by partner (on
 * Citus messages are distributed on partner_id and a row lock must name one shard, docs/scaling.md
 * "On Citus"): the partners come first, earliest due first, read without a lock, then each
 * partner's own due messages are leased, with what is left of the round. Both reads follow an index
 * in exactly their order (see duePartners; `webhook_messages_partner_due_order`, 0045), so a round
 * reads its own messages and not the whole backlog (ordering by the due time alone sorted every
 * message due at the same instant on each round: a backlog drained in time growing with its square).
 */
export async function leaseDueMessages(
  db: Kysely<DB>,
  now: Date,
  lease: Date,
  batchSize: number,
): Promise<Leased[]> {
  const { rows } = await duePartners(now, batchSize).execute(db);
  return lockPartnerByPartner(
    rows.map((row) => row.partner_id),
    batchSize,
    async (partnerId, limit) => (await leasePartnerMessages(partnerId, now, lease, limit).execute(db)).rows,
  );
}

/**
 * The partners with a due message on an enabled endpoint, the earliest due first, at most
 * `batchSize` of them (no lock). A disabled endpoint's backlog, which stays PENDING, is passed over,
 * so it cannot fill the round and starve the others. On PostgreSQL each partner's first due message
 * is read off its own due-order index: one probe a partner with an enabled endpoint, and no index
 * of every partner's due messages together, which was one more entry for every message written and
 * every lease (migration 0047, docs/performance.md "Seventeenth round"). Citus cannot push that
 * probe down to the shards: there the partners come from the first `batchSize` due messages of all
 * of them (`webhook_messages_due_order`, 0015, kept on Citus).
 */
export function duePartners(now: Date, batchSize: number) {
  if (onCitusCoordinator())
    return sql<{ partner_id: string }>`
      SELECT partner_id FROM (
        SELECT m.partner_id, m.next_attempt_at FROM webhook_messages m
        JOIN webhook_endpoints e ON e.id = m.endpoint_id AND e.enabled
        WHERE ${takeableAt(now)}
        ORDER BY m.next_attempt_at, m.created_at, m.rank, m.seq
        LIMIT ${batchSize}
      ) due
      GROUP BY partner_id ORDER BY min(next_attempt_at), partner_id`;
  return sql<{ partner_id: string }>`
    SELECT p.partner_id FROM (SELECT DISTINCT partner_id FROM webhook_endpoints WHERE enabled) p
    CROSS JOIN LATERAL (
      SELECT m.next_attempt_at FROM webhook_messages m
      WHERE m.partner_id = p.partner_id AND ${takeableAt(now)} AND ${ofEnabledEndpoint(sql`p.partner_id`)}
      ORDER BY m.next_attempt_at, m.created_at, m.rank, m.seq
      LIMIT 1
    ) first
    ORDER BY first.next_attempt_at, p.partner_id
    LIMIT ${batchSize}`;
}

/**
 * One partner's part of a round: its due messages, leased, in event order. The partner's enabled
 * endpoints are read first, once (an InitPlan), and filter the messages as they come off the index:
 * joined instead, a table without statistics yet (a new database's first crowd) was planned as a
 * hash join that read and sorted the partner's whole backlog on every round (280 ms a round of 160
 * with 300,000 messages due, against 3 ms; docs/performance.md "Sixteenth round").
 */
export function leasePartnerMessages(partnerId: string, now: Date, lease: Date, limit: number) {
  return sql<Leased>`
    WITH due AS (
      SELECT m.id FROM webhook_messages m
      WHERE m.partner_id = ${partnerId} AND ${takeableAt(now)} AND ${ofEnabledEndpoint(sql`${partnerId}`)}
      ORDER BY m.next_attempt_at, m.created_at, m.rank, m.seq
      LIMIT ${limit}
      FOR UPDATE OF m SKIP LOCKED
    ), leased AS (
      UPDATE webhook_messages m SET leased_until = ${lease}::timestamptz
      FROM due WHERE m.partner_id = ${partnerId} AND m.id = due.id
      RETURNING m.id, m.partner_id, m.endpoint_id, m.payload, m.attempts, m.created_at, m.rank, m.seq
    )
    SELECT l.id, l.partner_id, l.endpoint_id, l.payload, l.attempts, e.url, e.secret, e.previous_secret,
           e.previous_secret_expires_at
    FROM leased l JOIN webhook_endpoints e ON e.id = l.endpoint_id
    ORDER BY l.created_at, l.rank, l.seq`;
}

/**
 * The round's attempts and their messages' new states in ONE statement (not one per message), and
 * the messages it did not send released from their lease, due again at once at their place in
 * event order: a crash before it leaves the round's messages PENDING under their lease, so they are
 * sent again when it runs out, as after a crash during a POST (at least once).
 */
export async function recordAttempts(
  db: Kysely<DB>,
  attempts: Attempt[],
  unsent: ReadonlyArray<{ id: string; partnerId: string }>,
): Promise<void> {
  if (attempts.length === 0 && unsent.length === 0) return;
  await recordAttemptsStatement(attempts, unsent).execute(db);
}

/**
 * The PENDING message (alias `m`) of each row of the statement's CTE `rows` (columns `id`,
 * `partner_id`), found by its id through the primary key whatever PostgreSQL knows of the table.
 * The status is read from the row, written so that the due-order indexes cannot serve it: their
 * predicate is that very condition, and with no statistics yet (a new database's first crowd,
 * before autovacuum's first analyze) PostgreSQL took such an index for a few thousand rows and
 * planned the record of a round as a hash join over every PENDING message: 50-90 ms a round of 160
 * with 100,000-300,000 due, a backlog drained at a thousand messages a second (docs/performance.md,
 * "Eighteenth round"). The ids alone were not enough: it then ANDed that index's bitmap with the key's.
 */
function pendingMessageOf(rows: 't' | 'u'): RawBuilder<unknown> {
  const r = sql.raw(rows);
  return sql`m.partner_id = ${r}.partner_id AND m.id = ${r}.id AND m.id = ANY (ARRAY(SELECT ${r}.id FROM ${r}))
    AND (m.status || '') = 'PENDING'`;
}

/** The statement of recordAttempts (its messages found as pendingMessageOf says). */
export function recordAttemptsStatement(
  attempts: readonly Attempt[],
  unsent: ReadonlyArray<{ id: string; partnerId: string }>,
) {
  const column = <T>(pick: (a: Attempt) => T) => attempts.map(pick);
  // Every row named with its partner_id as well as its id (on Citus, the shard it lives on).
  return sql`
    WITH t AS (
      SELECT * FROM unnest(${column((a) => a.id)}::text[], ${column((a) => a.partnerId)}::text[], ${column((a) => a.at)}::timestamptz[],
                           ${column((a) => a.outcome.statusCode)}::int[], ${column((a) => a.outcome.error)}::text[],
                           ${column((a) => a.outcome.durationMs)}::int[], ${column((a) => a.status)}::text[],
                           ${column((a) => a.attempts)}::int[], ${column((a) => a.error)}::text[],
                           ${column((a) => a.nextAttemptAt)}::timestamptz[], ${column((a) => a.deliveredAt)}::timestamptz[])
             WITH ORDINALITY AS t(id, partner_id, at, code, outcome_error, duration, status, attempts, error, next_at, delivered_at, n)
    ), u AS (
      SELECT * FROM unnest(${unsent.map((u) => u.id)}::text[], ${unsent.map((u) => u.partnerId)}::text[]) AS u(id, partner_id)
    ), attempt AS (
      INSERT INTO webhook_attempts (message_id, partner_id, attempted_at, status_code, error, duration_ms)
      SELECT id, partner_id, at, code, outcome_error, duration FROM t ORDER BY n
    ), released AS (
      UPDATE webhook_messages m SET leased_until = NULL FROM u WHERE ${pendingMessageOf('u')}
    )
    UPDATE webhook_messages m SET status = t.status, attempts = t.attempts, last_error = t.error,
           next_attempt_at = t.next_at, leased_until = NULL, delivered_at = t.delivered_at
    FROM t WHERE ${pendingMessageOf('t')}`;
}
