// Webhook operator routes refuse bad input with the error body and change nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupMission, startTestApp } from './harness.ts';
import type { MissionSetup, TestContext } from './harness.ts';

let ctx: TestContext;
let setup: MissionSetup;

beforeAll(async () => {
  ctx = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true' } });
  setup = await setupMission(ctx);
});
afterAll(async () => {
  await ctx?.close();
});

const create = (body: unknown, partnerId = setup.partnerId) =>
  ctx.admin('POST', `/admin/v1/partners/${partnerId}/webhook-endpoints`, body);

describe('webhook errors', () => {
  it.each([
    [{ url: 'http://127.0.0.1:9/x', events: ['claim.exploded'] }, 400, 'VALIDATION_FAILED'],
    [{ url: 'http://127.0.0.1:9/x', events: [] }, 400, 'VALIDATION_FAILED'],
    [{ url: 'http://127.0.0.1:9/x' }, 400, 'VALIDATION_FAILED'],
    [{ url: 'not a url', events: ['user.linked'] }, 400, 'WEBHOOK_URL_REFUSED'],
    [{ url: 'ftp://example.com/x', events: ['user.linked'] }, 400, 'WEBHOOK_URL_REFUSED'],
    [{ url: 'https://user:pw@example.com/x', events: ['user.linked'] }, 400, 'WEBHOOK_URL_REFUSED'],
    [
      { url: 'http://127.0.0.1:9/x', events: ['user.linked'], secret: 'whsec_mine' },
      400,
      'VALIDATION_FAILED',
    ],
  ])('create %j -> %i %s', async (body, status, name) => {
    const response = await create(body);
    expect(response.statusCode, response.body).toBe(status);
    expect(response.json()).toMatchObject({ name, code: expect.any(Number), message: expect.any(String) });
  });

  it('nothing was written by the refused creates', async () => {
    expect((await ctx.admin('GET', '/admin/v1/webhook-endpoints')).json().items).toHaveLength(0);
  });

  it('unknown partner, endpoint and message are 404 with their codes', async () => {
    const partner = await create({ url: 'http://127.0.0.1:9/x', events: ['user.linked'] }, 'ptn_nope');
    expect(partner.json()).toMatchObject({ code: 3102, name: 'NOT_FOUND_PARTNER' });
    for (const [method, url] of [
      ['GET', '/admin/v1/webhook-endpoints/whe_nope'],
      ['PATCH', '/admin/v1/webhook-endpoints/whe_nope'],
      ['POST', '/admin/v1/webhook-endpoints/whe_nope/roll-secret'],
    ] as const) {
      const response = await ctx.admin(method, url, method === 'PATCH' ? { enabled: false } : undefined);
      expect(response.statusCode, url).toBe(404);
      expect(response.json()).toMatchObject({ code: 3700, name: 'NOT_FOUND_WEBHOOK_ENDPOINT' });
    }
    for (const [method, url] of [
      ['GET', '/admin/v1/webhook-messages/msg_nope'],
      ['POST', '/admin/v1/webhook-messages/msg_nope/resend'],
    ] as const) {
      const response = await ctx.admin(method, url);
      expect(response.statusCode, url).toBe(404);
      expect(response.json()).toMatchObject({ code: 3702, name: 'NOT_FOUND_WEBHOOK_MESSAGE' });
    }
  });

  it('a change with nothing in it, or a bad filter, is a 400', async () => {
    const created = await create({ url: 'http://127.0.0.1:9/x', events: ['user.linked'] });
    expect(created.statusCode).toBe(201);
    const empty = await ctx.admin('PATCH', `/admin/v1/webhook-endpoints/${created.json().id}`, {});
    expect(empty.statusCode).toBe(400);
    const filter = await ctx.admin('GET', '/admin/v1/webhook-messages?status=LOST');
    expect(filter.json()).toMatchObject({ name: 'VALIDATION_FAILED' });
  });
});
