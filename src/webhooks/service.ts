// Webhook endpoints and messages for operators: register, change, roll the secret (the old one
// keeps signing for a grace period), list the outbox with each attempt, re-send a message.
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import { newId } from '../domain/ids.ts';
import { webhookEndpointNotFound, webhookMessageNotFound, webhookUrlRefused } from '../error-factories.ts';
import { getPartner } from '../partners/service.ts';
import { refuseEndpointUrl } from './addresses.ts';
import type { AddressRules } from './addresses.ts';
import { newWebhookSecret, PREVIOUS_SECRET_GRACE_MS } from './secrets.ts';
import * as store from './store.ts';
import { fanOutOutbox } from './store/outbox.ts';
import type { EndpointRow, MessageFilter } from './store.ts';

export interface EndpointView {
  id: string;
  partnerId: string;
  url: string;
  description: string | null;
  events: string[];
  enabled: boolean;
  /** Until when the previous secret still signs (after a roll); null when there is none. */
  previousSecretExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The endpoint as operators see it: never the secret. */
function endpointView(row: EndpointRow): EndpointView {
  return {
    id: row.id,
    partnerId: row.partner_id,
    url: row.url,
    description: row.description,
    events: row.events,
    enabled: row.enabled,
    previousSecretExpiresAt: row.previous_secret_expires_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

async function checkUrl(url: string, rules: AddressRules): Promise<void> {
  const problem = await refuseEndpointUrl(url, rules);
  if (problem) throw webhookUrlRefused(problem);
}

export interface EndpointInput {
  url: string;
  events: string[];
  description?: string | null;
  enabled?: boolean;
}

/** Registers an endpoint; the answer holds its secret, which is never shown again. */
export async function createEndpoint(
  db: Kysely<DB>,
  clock: Clock,
  rules: AddressRules,
  partnerId: string,
  input: EndpointInput,
): Promise<EndpointView & { secret: string }> {
  await getPartner(db, partnerId);
  await checkUrl(input.url, rules);
  const now = clock.now();
  const row: EndpointRow = {
    id: newId('whe'),
    partner_id: partnerId,
    url: input.url,
    description: input.description ?? null,
    events: [...new Set(input.events)],
    enabled: input.enabled ?? true,
    secret: newWebhookSecret(),
    previous_secret: null,
    previous_secret_expires_at: null,
    created_at: now,
    updated_at: now,
  };
  await store.insertEndpoint(db, row);
  return { ...endpointView(row), secret: row.secret };
}

export async function getEndpoint(db: Kysely<DB>, id: string): Promise<EndpointView> {
  const row = await store.findEndpoint(db, id);
  if (!row) throw webhookEndpointNotFound(id);
  return endpointView(row);
}

export async function listEndpoints(
  db: Kysely<DB>,
  partnerId: string | undefined,
  limit: number,
  offset: number,
): Promise<EndpointView[]> {
  return (await store.listEndpoints(db, partnerId, limit, offset)).map(endpointView);
}

export async function updateEndpoint(
  db: Kysely<DB>,
  clock: Clock,
  rules: AddressRules,
  id: string,
  input: Partial<EndpointInput>,
): Promise<EndpointView> {
  if (input.url !== undefined) await checkUrl(input.url, rules);
  const row = await store.updateEndpoint(db, id, {
    ...(input.url !== undefined && { url: input.url }),
    ...(input.events !== undefined && { events: [...new Set(input.events)] }),
    ...(input.description !== undefined && { description: input.description }),
    ...(input.enabled !== undefined && { enabled: input.enabled }),
    updated_at: clock.now(),
  });
  if (!row) throw webhookEndpointNotFound(id);
  return endpointView(row);
}

/** A new secret, answered once; the current one keeps signing (a second signature) for the grace period. */
export async function rollEndpointSecret(
  db: Kysely<DB>,
  clock: Clock,
  id: string,
): Promise<EndpointView & { secret: string }> {
  const current = await store.findEndpoint(db, id);
  if (!current) throw webhookEndpointNotFound(id);
  const now = clock.now();
  const secret = newWebhookSecret();
  const row = await store.updateEndpoint(db, id, {
    secret,
    previous_secret: current.secret,
    previous_secret_expires_at: new Date(now.getTime() + PREVIOUS_SECRET_GRACE_MS),
    updated_at: now,
  });
  if (!row) throw webhookEndpointNotFound(id);
  return { ...endpointView(row), secret };
}

type MessageRow = NonNullable<Awaited<ReturnType<typeof store.findMessage>>>;

function messageView(row: MessageRow) {
  return {
    id: row.id,
    endpointId: row.endpoint_id,
    partnerId: row.partner_id,
    eventType: row.event_type,
    payload: row.payload as Record<string, unknown>,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.status === 'PENDING' ? row.next_attempt_at.toISOString() : null,
    lastError: row.last_error,
    createdAt: row.created_at.toISOString(),
    deliveredAt: row.delivered_at?.toISOString() ?? null,
  };
}

/** Outbox rows a listing turns into messages before it reads, at most (store/outbox.ts). */
const LISTING_FAN_OUT_ROWS = 10_000;

export async function listMessages(
  db: Kysely<DB>,
  filter: MessageFilter,
  limit: number,
  offset: number,
  /** A partner whose outbox rows cannot become messages (a bug): the listing shows the rest. */
  onPartnerError: (partnerId: string, error: unknown) => void,
) {
  // A listing shows every message written so far: those still in the outbox (the delivery worker
  // makes them before its rounds, and waits while it yields) are made first.
  const scope = filter.partnerId === undefined ? {} : { partnerId: filter.partnerId };
  const stuck: string[] = [];
  const failed = (partnerId: string, error: unknown) => {
    stuck.push(partnerId);
    onPartnerError(partnerId, error);
  };
  for (let turned = 0; turned < LISTING_FAN_OUT_ROWS;) {
    const stuckBefore = stuck.length;
    const step = await fanOutOutbox(db, {
      ...scope,
      maxRows: 500,
      skipPartners: stuck,
      onPartnerError: failed,
    });
    turned += step;
    // Done when a step turned nothing, unless a partner failed in it: the others may come after it.
    if (step === 0 && stuck.length === stuckBefore) break;
  }
  return (await store.listMessages(db, filter, limit, offset)).map(messageView);
}

/** A message with every attempt to deliver it, oldest first. */
export async function getMessage(db: Kysely<DB>, id: string) {
  const row = await store.findMessage(db, id);
  if (!row) throw webhookMessageNotFound(id);
  const attempts = await store.listAttempts(db, id);
  return {
    ...messageView(row),
    attemptLog: attempts.map((a) => ({
      attemptedAt: a.attempted_at.toISOString(),
      statusCode: a.status_code,
      error: a.error,
      durationMs: a.duration_ms,
    })),
  };
}

/**
 * Sends a message again (same webhook-id, so a receiver that has it can tell), with a fresh retry
 * schedule.
 */
export async function resendMessage(db: Kysely<DB>, clock: Clock, id: string) {
  if (!(await store.requeueMessage(db, id, clock.now()))) throw webhookMessageNotFound(id);
  return getMessage(db, id);
}
