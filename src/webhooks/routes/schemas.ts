// Schemas shared by the webhook operator routes.
import { Type } from 'typebox';
import { WEBHOOK_EVENT_TYPES } from '../outbox.ts';

export const tags = ['admin: webhooks'];
export const security = [{ adminBearer: [] }];

export const EventType = Type.Union(
  WEBHOOK_EVENT_TYPES.map((t) => Type.Literal(t)),
  { description: 'An event type (docs/webhooks.md)' },
);
export const EventTypes = Type.Array(EventType, { minItems: 1, maxItems: 50 });
export const EndpointUrl = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: 'https URL on a public address (http only outside production)',
  examples: ['https://partner.example/webhooks'],
});
export const Description = Type.Union([Type.String({ maxLength: 200 }), Type.Null()]);

export const Endpoint = Type.Object({
  id: Type.String(),
  partnerId: Type.String(),
  url: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  events: Type.Array(Type.String()),
  enabled: Type.Boolean(),
  previousSecretExpiresAt: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});
export const EndpointWithSecret = Type.Intersect([
  Endpoint,
  Type.Object({ secret: Type.String({ description: 'whsec_...: shown only in this answer' }) }),
]);

export const MessageStatus = Type.Union([
  Type.Literal('PENDING'),
  Type.Literal('DELIVERED'),
  Type.Literal('FAILED'),
]);
export const Message = Type.Object({
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
});
export const Attempt = Type.Object({
  attemptedAt: Type.String(),
  statusCode: Type.Union([Type.Integer(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
  durationMs: Type.Integer(),
});
export const MessageWithAttempts = Type.Intersect([
  Message,
  Type.Object({ attemptLog: Type.Array(Attempt) }),
]);
