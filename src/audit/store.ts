// The SQL of the audit log: reading it, and naming each write request's operator. Rows are written
// only by the triggers of migration 0014 (and the 'operation' row of insertOperationEvent); nothing
// here updates or deletes one.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { AuditAction, DB } from '../db/schema.ts';

export interface AuditFilter {
  actorId?: string;
  entityType?: string;
  entityId?: string;
  action?: AuditAction;
  since?: string;
  until?: string;
}

/** Newest first; `since` is inclusive, `until` exclusive. */
export async function listAuditEventRows(
  db: Kysely<DB>,
  filter: AuditFilter,
  limit: number,
  offset: number,
): Promise<{ rows: AuditEventRow[]; total: number }> {
  let query = db.selectFrom('audit_events');
  if (filter.actorId !== undefined) query = query.where('actor_id', '=', filter.actorId);
  if (filter.entityType !== undefined) query = query.where('entity_type', '=', filter.entityType);
  if (filter.entityId !== undefined) query = query.where('entity_id', '=', filter.entityId);
  if (filter.action !== undefined) query = query.where('action', '=', filter.action);
  if (filter.since !== undefined) query = query.where('at', '>=', new Date(filter.since));
  if (filter.until !== undefined) query = query.where('at', '<', new Date(filter.until));
  const [rows, count] = await Promise.all([
    query
      .select([
        sql<string>`id::text`.as('id'),
        'at',
        'actor_id',
        'actor_name',
        'action',
        'entity_type',
        'entity_id',
        // As text: the pg driver would parse a jsonb amount (numeric(78,0)) into a float.
        sql<string | null>`before::text`.as('before'),
        sql<string | null>`after::text`.as('after'),
        'request_id',
      ])
      .orderBy('at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute(),
    query.select(sql<number>`count(*)::int`.as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: count.total };
}

/** An audit row as read: its row images as jsonb text (see service.ts rowImage). */
export interface AuditEventRow {
  id: string;
  at: Date;
  actor_id: string;
  actor_name: string;
  action: AuditAction;
  entity_type: string;
  entity_id: string;
  before: string | null;
  after: string | null;
  request_id: string | null;
}

/** Names the operator of this write transaction, for the audit triggers of migration 0014. */
export async function nameOperator(
  trx: Kysely<DB>,
  operator: { adminId: string; requestId: string; at: Date },
): Promise<void> {
  await sql`SELECT set_config('mrs.actor', json_build_object(
      'id', ${operator.adminId}::text,
      'name', coalesce((SELECT name FROM admin_credentials WHERE id = ${operator.adminId}::text), ''),
      'requestId', ${operator.requestId}::text,
      'at', ${operator.at.toISOString()}::timestamptz)::text, true)`.execute(trx);
}

/** Whether a trigger wrote an audit row in this transaction. */
export async function auditedInTransaction(trx: Kysely<DB>): Promise<boolean> {
  const audited = await sql<{
    audited: string | null;
  }>`SELECT current_setting('mrs.audited', true) AS audited`.execute(trx);
  return audited.rows[0]?.audited === 'yes';
}

/** The 'operation' row of a write that changed no audited row: the route and its path parameters. */
export async function insertOperationEvent(trx: Kysely<DB>, route: string, params: unknown): Promise<void> {
  await sql`INSERT INTO audit_events (at, actor_id, actor_name, action, entity_type, entity_id, before, after, request_id)
    SELECT (a ->> 'at')::timestamptz, a ->> 'id', a ->> 'name', 'update', 'operation', ${route}::text,
           NULL, jsonb_build_object('params', ${JSON.stringify(params)}::jsonb), a ->> 'requestId'
    FROM (SELECT current_setting('mrs.actor')::jsonb AS a) actor`.execute(trx);
}
