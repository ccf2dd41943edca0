// SQL of webhooks: endpoints, the outbox's messages and their attempts, as the operator sees them.
import type { Kysely, Selectable } from 'kysely';
import type { DB, WebhookMessageStatus } from '../db/schema.ts';

export type EndpointRow = Selectable<DB['webhook_endpoints']>;

export async function insertEndpoint(db: Kysely<DB>, row: EndpointRow): Promise<void> {
  await db.insertInto('webhook_endpoints').values(row).execute();
}

export async function findEndpoint(db: Kysely<DB>, id: string): Promise<EndpointRow | undefined> {
  return db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listEndpoints(
  db: Kysely<DB>,
  partnerId: string | undefined,
  limit: number,
  offset: number,
): Promise<EndpointRow[]> {
  let query = db.selectFrom('webhook_endpoints').selectAll();
  if (partnerId !== undefined) query = query.where('partner_id', '=', partnerId);
  return query.orderBy('created_at').orderBy('id').limit(limit).offset(offset).execute();
}

export async function updateEndpoint(
  db: Kysely<DB>,
  id: string,
  changes: Partial<Omit<EndpointRow, 'id' | 'partner_id' | 'created_at'>>,
): Promise<EndpointRow | undefined> {
  return db
    .updateTable('webhook_endpoints')
    .set(changes)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export interface MessageFilter {
  partnerId?: string;
  endpointId?: string;
  status?: WebhookMessageStatus;
  eventType?: string;
}

const messageColumns = [
  'id',
  'endpoint_id',
  'partner_id',
  'event_type',
  'payload',
  'status',
  'attempts',
  'next_attempt_at',
  'last_error',
  'created_at',
  'delivered_at',
] as const;

export async function listMessages(db: Kysely<DB>, filter: MessageFilter, limit: number, offset: number) {
  let query = db.selectFrom('webhook_messages').select(messageColumns);
  if (filter.partnerId !== undefined) query = query.where('partner_id', '=', filter.partnerId);
  if (filter.endpointId !== undefined) query = query.where('endpoint_id', '=', filter.endpointId);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.eventType !== undefined) query = query.where('event_type', '=', filter.eventType);
  return query
    .orderBy('created_at', 'desc')
    .orderBy('rank', 'desc')
    .orderBy('seq', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
}

export async function findMessage(db: Kysely<DB>, id: string) {
  return db.selectFrom('webhook_messages').select(messageColumns).where('id', '=', id).executeTakeFirst();
}

export async function listAttempts(db: Kysely<DB>, messageId: string) {
  return db
    .selectFrom('webhook_attempts')
    .select(['id', 'attempted_at', 'status_code', 'error', 'duration_ms'])
    .where('message_id', '=', messageId)
    .orderBy('id')
    .execute();
}

/** Due again now, with a fresh retry schedule; its attempts so far stay in the history. */
export async function requeueMessage(db: Kysely<DB>, id: string, now: Date): Promise<boolean> {
  const row = await db
    .updateTable('webhook_messages')
    .set({ status: 'PENDING', attempts: 0, next_attempt_at: now, leased_until: null, delivered_at: null })
    .where('id', '=', id)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}
