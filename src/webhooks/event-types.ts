// The webhook event types a partner may subscribe to (docs/webhooks.md).

/** Every event type, in lifecycle order: one statement's events are delivered in this order. */
export const WEBHOOK_EVENT_TYPES = [
  'user.linked',
  'mission.completed',
  'claim.reserved',
  'claim.requested',
  'claim.rejected',
  'claim.failed',
  'claim.succeeded',
  'draw.run',
  'user.unlinked',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
