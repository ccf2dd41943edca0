// Schemas shared by the webhook operator routes.
import { Type } from 'typebox';
import { component, EXAMPLE } from '../../http/schemas.ts';
import { WEBHOOK_EVENT_TYPES } from '../event-types.ts';

export const tags = ['admin: webhooks'];
export const security = [{ adminBearer: [] }];

export const EventType = Type.Union(
  WEBHOOK_EVENT_TYPES.map((t) => Type.Literal(t)),
  { ...component('WebhookEventType'), description: 'An event type (docs/webhooks.md)' },
);
export const EventTypes = Type.Array(EventType, { minItems: 1, maxItems: 50 });
export const EndpointUrl = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: 'https URL on a public address (http only outside production)',
  examples: ['https://partner.example/webhooks'],
});
export const Description = Type.Union([Type.String({ maxLength: 200 }), Type.Null()]);

export const Endpoint = Type.Object(
  {
    id: Type.String(),
    partnerId: Type.String(),
    url: Type.String(),
    description: Type.Union([Type.String(), Type.Null()]),
    events: Type.Array(Type.String()),
    enabled: Type.Boolean(),
    previousSecretExpiresAt: Type.Union([Type.String(), Type.Null()]),
    createdAt: Type.String(),
    updatedAt: Type.String(),
  },
  {
    ...component('WebhookEndpoint'),
    examples: [
      {
        id: EXAMPLE.endpointId,
        partnerId: EXAMPLE.partnerId,
        url: 'https://partner.example/webhooks',
        description: 'claims to the game server',
        events: ['claim.succeeded', 'claim.failed'],
        enabled: true,
        previousSecretExpiresAt: null,
        createdAt: EXAMPLE.instant,
        updatedAt: EXAMPLE.instant,
      },
    ],
  },
);
export const EndpointWithSecret = Type.Intersect(
  [Endpoint, Type.Object({ secret: Type.String({ description: 'whsec_...: shown only in this answer' }) })],
  {
    ...component('NewWebhookEndpoint'),
    examples: [
      {
        id: EXAMPLE.endpointId,
        partnerId: EXAMPLE.partnerId,
        url: 'https://partner.example/webhooks',
        description: 'claims to the game server',
        events: ['claim.succeeded', 'claim.failed'],
        enabled: true,
        previousSecretExpiresAt: null,
        createdAt: EXAMPLE.instant,
        updatedAt: EXAMPLE.instant,
        secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      },
    ],
  },
);

export const MessageStatus = Type.Union(
  [Type.Literal('PENDING'), Type.Literal('DELIVERED'), Type.Literal('FAILED')],
  component('WebhookMessageStatus'),
);
/** One delivered message, the example of the message and of the message with its attempts. */
const MESSAGE_EXAMPLE = {
  id: EXAMPLE.messageId,
  endpointId: EXAMPLE.endpointId,
  partnerId: EXAMPLE.partnerId,
  eventType: 'claim.succeeded',
  payload: {
    type: 'claim.succeeded',
    timestamp: EXAMPLE.later,
    data: {
      claimId: EXAMPLE.claimId,
      partnerUid: EXAMPLE.partnerUid,
      status: 'SUCCEEDED',
      source: 'MISSION',
      sourceId: EXAMPLE.missionId,
      periodKey: '2026-11-24',
      assetId: EXAMPLE.assetId,
      amount: '50',
      reason: null,
      transactionHash: null,
    },
  },
  status: 'DELIVERED',
  attempts: 1,
  nextAttemptAt: null,
  lastError: null,
  createdAt: EXAMPLE.later,
  deliveredAt: EXAMPLE.later,
};
const ATTEMPT_EXAMPLE = { attemptedAt: EXAMPLE.later, statusCode: 200, error: null, durationMs: 84 };

export const Message = Type.Object(
  {
    id: Type.String({ description: 'The webhook-id header of every attempt' }),
    endpointId: Type.String(),
    partnerId: Type.String(),
    eventType: Type.String(),
    payload: Type.Object({}, { additionalProperties: true }),
    status: MessageStatus,
    attempts: Type.Integer(),
    nextAttemptAt: Type.Union([Type.String(), Type.Null()]),
    lastError: Type.Union([Type.String(), Type.Null()]),
    createdAt: Type.String(),
    deliveredAt: Type.Union([Type.String(), Type.Null()]),
  },
  {
    ...component('WebhookMessage'),
    examples: [MESSAGE_EXAMPLE],
  },
);
export const Attempt = Type.Object(
  {
    attemptedAt: Type.String(),
    statusCode: Type.Union([Type.Integer(), Type.Null()]),
    error: Type.Union([Type.String(), Type.Null()]),
    durationMs: Type.Integer(),
  },
  {
    ...component('WebhookAttempt'),
    examples: [ATTEMPT_EXAMPLE],
  },
);
export const MessageWithAttempts = Type.Intersect(
  [Message, Type.Object({ attemptLog: Type.Array(Attempt) })],
  {
    ...component('WebhookMessageWithAttempts'),
    examples: [{ ...MESSAGE_EXAMPLE, attemptLog: [ATTEMPT_EXAMPLE] }],
  },
);
