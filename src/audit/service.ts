// The audit log's reads for the console: the store's rows as the API's events, their row images
// with every number kept exact.
import type { Kysely } from 'kysely';
import type { AuditAction, DB } from '../db/schema.ts';
import { listAuditEventRows } from './store.ts';
import type { AuditFilter } from './store.ts';

export type { AuditFilter } from './store.ts';

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
  const { rows, total } = await listAuditEventRows(db, filter, limit, offset);
  return {
    total,
    items: rows.map((row) => ({
      id: row.id,
      at: row.at.toISOString(),
      actor: { id: row.actor_id, name: row.actor_name },
      action: row.action,
      entityType: row.entity_type,
      entityId: row.entity_id,
      before: rowImage(row.before),
      after: rowImage(row.after),
      requestId: row.request_id,
    })),
  };
}

// A JSON string literal (kept as it is) or a JSON number (quoted): the alternation meets a string
// first, so digits inside one are never touched.
const STRING_OR_NUMBER = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/**
 * A row image from its jsonb text, every number as its exact decimal string: amounts are
 * numeric(78,0) base units, which a JSON number would round beyond 2^53 (a top-up of 1 base unit
 * on 10^21 would read `1e+21` before and after).
 */
export function rowImage(text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  return JSON.parse(
    text.replace(STRING_OR_NUMBER, (token) => (token.startsWith('"') ? token : `"${token}"`)),
  ) as Record<string, unknown>;
}
