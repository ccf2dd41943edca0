// The SQL of the audit log: reading it. Rows are written only by the triggers of migration 0014
// (and the 'operation' row of operator-writes.ts); nothing here updates or deletes one.
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

export interface AuditEventView {
  id: string;
  at: string;
  actor: { id: string; name: string };
  action: AuditAction;
  entityType: string;
  entityId: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  requestId: string | null;
}

/** Newest first; `since` is inclusive, `until` exclusive. */
export async function listAuditEvents(
  db: Kysely<DB>,
  filter: AuditFilter,
  limit: number,
  offset: number,
): Promise<{ items: AuditEventView[]; total: number }> {
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
        'before',
        'after',
        'request_id',
      ])
      .orderBy('at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute(),
    query.select(sql<number>`count(*)::int`.as('total')).executeTakeFirstOrThrow(),
  ]);
  return {
    total: count.total,
    items: rows.map((row) => ({
      id: row.id,
      at: row.at.toISOString(),
      actor: { id: row.actor_id, name: row.actor_name },
      action: row.action,
      entityType: row.entity_type,
      entityId: row.entity_id,
      before: row.before,
      after: row.after,
      requestId: row.request_id,
    })),
  };
}
