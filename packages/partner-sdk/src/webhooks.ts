// Webhook verification: the service signs its deliveries after the Standard Webhooks specification
// (headers webhook-id, webhook-timestamp, webhook-signature; secret whsec_...). This wraps the
// `standardwebhooks` package and answers a typed event, or throws WebhookVerificationError.
import { Webhook, WebhookVerificationError as StandardVerificationError } from 'standardwebhooks';

/** The event types the service sends. */
export const WEBHOOK_EVENT_TYPES = [
  'user.linked',
  'user.unlinked',
  'mission.completed',
  'claim.reserved',
  'claim.requested',
  'claim.succeeded',
  'claim.failed',
  'claim.rejected',
  'draw.run',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/**
 * The data of each event type. Typed loosely on purpose: fields may be added by the service at any
 * time, so read what you need and check it.
 */
export interface WebhookEventData {
  'user.linked': Record<string, unknown>;
  'user.unlinked': Record<string, unknown>;
  'mission.completed': Record<string, unknown>;
  'claim.reserved': Record<string, unknown>;
  'claim.requested': Record<string, unknown>;
  'claim.succeeded': Record<string, unknown>;
  'claim.failed': Record<string, unknown>;
  'claim.rejected': Record<string, unknown>;
  'draw.run': Record<string, unknown>;
}

/**
 * A verified event: `switch (event.type)` narrows it. A service newer than this SDK may send types
 * not listed here, so keep a `default` branch.
 */
export type WebhookEvent = {
  [T in WebhookEventType]: {
    type: T;
    /** When the event happened (ISO 8601). */
    timestamp: string;
    data: WebhookEventData[T];
    /** The delivery's webhook-id: the same on every retry of one delivery, so use it to drop repeats. */
    webhookId: string;
  };
}[WebhookEventType];

/** Request headers as Node's http module or the fetch API give them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export type WebhookVerificationFailure =
  | 'MISSING_HEADERS'
  | 'INVALID_SIGNATURE'
  | 'TIMESTAMP_TOO_OLD'
  | 'TIMESTAMP_TOO_NEW'
  | 'INVALID_PAYLOAD'
  | 'INVALID_SECRET';

/** The delivery is not a genuine, fresh event of the service: answer 400 and do not act on it. */
export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError' as const;
  constructor(
    /** Why verification failed. */
    readonly reason: WebhookVerificationFailure,
    message: string,
    options?: { cause: unknown },
  ) {
    super(message, options);
  }
}

const REASONS: Record<string, WebhookVerificationFailure> = {
  'Missing required headers': 'MISSING_HEADERS',
  'No matching signature found': 'INVALID_SIGNATURE',
  'Invalid Signature Headers': 'INVALID_SIGNATURE',
  'Message timestamp too old': 'TIMESTAMP_TOO_OLD',
  'Message timestamp too new': 'TIMESTAMP_TOO_NEW',
};

/**
 * Verifies one delivery and answers its event. `rawBody` must be the body exactly as received
 * (before any JSON parsing); the timestamp must be within five minutes of this machine's clock.
 */
export function verifyWebhook(
  secret: string,
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
): WebhookEvent {
  let webhook: Webhook;
  try {
    webhook = new Webhook(secret);
  } catch (error) {
    throw new WebhookVerificationError('INVALID_SECRET', 'the webhook secret is not a whsec_ secret', {
      cause: error,
    });
  }
  const body = typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody);
  let payload: unknown;
  try {
    payload = webhook.verify(body, standardHeaders(headers));
  } catch (error) {
    if (error instanceof StandardVerificationError) {
      const reason = REASONS[error.message] ?? 'INVALID_SIGNATURE';
      throw new WebhookVerificationError(reason, error.message, { cause: error });
    }
    // A correctly signed body that is not JSON.
    throw new WebhookVerificationError('INVALID_PAYLOAD', 'the webhook body is not JSON', { cause: error });
  }
  if (!isEventShape(payload))
    throw new WebhookVerificationError('INVALID_PAYLOAD', 'the webhook body is not {type, timestamp, data}');
  const webhookId = standardHeaders(headers)['webhook-id'] as string;
  return { ...payload, webhookId } as WebhookEvent;
}

function standardHeaders(headers: WebhookHeaders): Record<string, string> {
  const read = (name: string): string | undefined => {
    if (headers instanceof Headers) return headers.get(name) ?? undefined;
    const value = headers[name] ?? headers[name.toLowerCase()];
    return Array.isArray(value) ? value[0] : value;
  };
  const out: Record<string, string> = {};
  for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
    const value = read(name);
    if (value !== undefined) out[name] = value;
  }
  return out;
}

function isEventShape(payload: unknown): payload is { type: string; timestamp: string; data: object } {
  if (typeof payload !== 'object' || payload === null) return false;
  const { type, timestamp, data } = payload as Record<string, unknown>;
  return (
    typeof type === 'string' && typeof timestamp === 'string' && typeof data === 'object' && data !== null
  );
}
