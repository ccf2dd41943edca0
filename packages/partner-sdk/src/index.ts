// @mission-rewards/partner-sdk: call the partner API of the Mission Reward service and verify its webhooks.
export { createPartnerClient, readLinkCallback } from './client.js';
export type {
  AchieveRequest,
  AuthUrlParameters,
  BrowserType,
  CallOptions,
  CallResult,
  ConnectRequest,
  LinkCallback,
  PartnerClient,
  PartnerClientOptions,
} from './client.js';
export { PARTNER_ERROR_NAMES, PartnerAbortError, PartnerApiError, PartnerConnectionError } from './errors.js';
export type { ErrorBody, KnownPartnerErrorName, PartnerErrorName } from './errors.js';
export { DEFAULT_RETRY } from './retry.js';
export type { RetryOptions } from './retry.js';
export { verifyWebhook, WEBHOOK_EVENT_TYPES, WebhookVerificationError } from './webhooks.js';
export type { WebhookEvent, WebhookEventType, WebhookHeaders } from './webhooks.js';
export type { paths as PartnerApiPaths } from './schema.js';
