// Endpoint signing secrets as Standard Webhooks defines them: 'whsec_' and the base64 of random bytes.
import { randomBytes } from 'node:crypto';

/** 24 random bytes (192 bits), within the spec's 24-64. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/** How long a rolled-away secret keeps signing (a second signature), so receivers can switch over. */
export const PREVIOUS_SECRET_GRACE_MS = 24 * 3600 * 1000;
