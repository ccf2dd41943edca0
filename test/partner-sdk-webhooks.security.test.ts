// verifyWebhook: a delivery signed by the `standardwebhooks` package (as the service signs them) is
// accepted and typed; a tampered body, a wrong secret, an old timestamp or missing headers are refused.
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { verifyWebhook, WebhookVerificationError } from '../packages/partner-sdk/src/index.ts';
import type { WebhookEvent } from '../packages/partner-sdk/src/index.ts';

const secret = `whsec_${randomBytes(24).toString('base64')}`;

function signed(payload: object, at = new Date(), id = `msg_${randomBytes(8).toString('hex')}`) {
  const body = JSON.stringify(payload);
  return {
    body,
    headers: {
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(id, at, body),
    },
  };
}

function refusal(run: () => unknown): WebhookVerificationError {
  try {
    run();
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error;
    throw error;
  }
  throw new Error('verification did not fail');
}

const claimSucceeded = {
  type: 'claim.succeeded',
  timestamp: new Date().toISOString(),
  data: { claimId: 'clm_1', transactionHash: '0xabc' },
};

describe('verifyWebhook', () => {
  it('accepts a signed delivery and answers a typed event that a switch narrows', () => {
    const { body, headers } = signed(claimSucceeded, new Date(), 'msg_fixed');
    const event: WebhookEvent = verifyWebhook(secret, body, headers);
    expect(event).toEqual({ ...claimSucceeded, webhookId: 'msg_fixed' });
    let seen = '';
    switch (event.type) {
      case 'claim.succeeded':
        seen = String(event.data.transactionHash);
        break;
      default:
        seen = 'other';
    }
    expect(seen).toBe('0xabc');
  });

  it('takes a Buffer body and Headers as a fetch handler gives them', () => {
    const { body, headers } = signed({ type: 'user.linked', timestamp: new Date().toISOString(), data: {} });
    expect(verifyWebhook(secret, Buffer.from(body), new Headers(headers)).type).toBe('user.linked');
  });

  it('refuses a tampered body, another secret, or a replaced signature', () => {
    const { body, headers } = signed(claimSucceeded);
    const tampered = body.replace('0xabc', '0xdef');
    expect(refusal(() => verifyWebhook(secret, tampered, headers)).reason).toBe('INVALID_SIGNATURE');
    const other = `whsec_${randomBytes(24).toString('base64')}`;
    expect(refusal(() => verifyWebhook(other, body, headers)).reason).toBe('INVALID_SIGNATURE');
    const forged = { ...headers, 'webhook-signature': `v1,${randomBytes(32).toString('base64')}` };
    expect(refusal(() => verifyWebhook(secret, body, forged)).reason).toBe('INVALID_SIGNATURE');
  });

  it('refuses an old timestamp (a replay) and one from the future', () => {
    const old = signed(claimSucceeded, new Date(Date.now() - 10 * 60_000));
    expect(refusal(() => verifyWebhook(secret, old.body, old.headers)).reason).toBe('TIMESTAMP_TOO_OLD');
    const future = signed(claimSucceeded, new Date(Date.now() + 10 * 60_000));
    expect(refusal(() => verifyWebhook(secret, future.body, future.headers)).reason).toBe(
      'TIMESTAMP_TOO_NEW',
    );
  });

  it('refuses missing headers and a signed body that is not an event', () => {
    const { body, headers } = signed(claimSucceeded);
    const { 'webhook-signature': _dropped, ...unsigned } = headers;
    expect(refusal(() => verifyWebhook(secret, body, unsigned)).reason).toBe('MISSING_HEADERS');
    const notEvent = signed({ hello: 'world' });
    expect(refusal(() => verifyWebhook(secret, notEvent.body, notEvent.headers)).reason).toBe(
      'INVALID_PAYLOAD',
    );
    expect(refusal(() => verifyWebhook('not a secret!', body, headers)).reason).toBe('INVALID_SECRET');
  });
});
