// Webhook security: endpoints may not point at private or otherwise non-public addresses (when
// saved, and again for the address each delivery connects to: DNS rebinding); http is refused in
// production and so is the switch that allows private addresses; the secret is shown once and
// never logged; a viewer cannot register endpoints.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupMission, startTestApp } from './harness.ts';
import type { MissionSetup, TestContext } from './harness.ts';
import { startReceiver } from './webhooks/receiver.ts';
import { registerEndpoint } from './webhooks/endpoints.ts';
import { ConfigError, loadWebhookConfig } from '../src/config.ts';
import { isPublicAddress, refuseEndpointUrl } from '../src/webhooks/addresses.ts';
import { runWebhookBatch } from '../src/webhooks/delivery.ts';
import { insertMapping } from '../src/linking/store.ts';

let ctx: TestContext;
let setup: MissionSetup;

beforeAll(async () => {
  ctx = await startTestApp({ captureLogs: true });
  setup = await setupMission(ctx);
});
afterAll(async () => {
  await ctx?.close();
});

const create = (url: string) =>
  ctx.admin('POST', `/admin/v1/partners/${setup.partnerId}/webhook-endpoints`, {
    url,
    events: ['user.linked'],
  });

describe('webhook addresses', () => {
  it.each([
    'http://127.0.0.1/hooks',
    'https://127.1.2.3/hooks',
    'https://10.0.0.5/hooks',
    'https://172.16.3.4/hooks',
    'https://192.168.1.1/hooks',
    'https://169.254.169.254/latest/meta-data',
    'https://100.64.0.1/hooks',
    'https://0.0.0.0/hooks',
    'https://[::1]/hooks',
    'https://[::ffff:127.0.0.1]/hooks',
    // IPv4-compatible IPv6 (::/96) reaches the IPv4 address on many stacks.
    'http://[::127.0.0.1]/',
    'https://[::7f00:1]/hooks',
    'https://[0:0:0:0:0:0:127.0.0.1]/hooks',
    'https://[::a9fe:a9fe]/latest/meta-data',
    'https://[::8.8.8.8]/hooks',
    'https://[::ffff:0:127.0.0.1]/hooks',
    'https://[0:0:0:0:0:ffff:7f00:1]/hooks',
    'https://[1::]/hooks',
    'https://[fd00::1]/hooks',
    'https://[fe80::1]/hooks',
    'https://localhost/hooks',
    'https://2130706433/hooks',
  ])('refuses %s when saved', async (url) => {
    const response = await create(url);
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toMatchObject({ code: 3701, name: 'WEBHOOK_URL_REFUSED' });
  });

  it('judges addresses: public ones pass, every private range fails', () => {
    expect(isPublicAddress('93.184.216.34')).toBe(true);
    expect(isPublicAddress('2606:4700::1111')).toBe(true);
    for (const ip of ['127.0.0.1', '10.1.1.1', '192.0.2.1', '224.0.0.1', '::', '::ffff:10.0.0.1', 'ff02::1'])
      expect(isPublicAddress(ip), ip).toBe(false);
    // The embedded IPv4 of an IPv4-compatible or -translated address is never trusted; a mapped one is
    // judged by its IPv4 address whatever the spelling.
    for (const ip of [
      '::127.0.0.1',
      '::7f00:1',
      '::a9fe:a9fe',
      '::8.8.8.8',
      '::ffff:0:7f00:1',
      '::ffff:7f00:1',
    ])
      expect(isPublicAddress(ip), ip).toBe(false);
    for (const ip of ['::ffff:8.8.8.8', '::ffff:808:808', '2001:4860:4860::8888'])
      expect(isPublicAddress(ip), ip).toBe(true);
  });

  it('production: http is refused, https to a public address is not', async () => {
    const production = { requireHttps: true, allowPrivateAddresses: false };
    expect(await refuseEndpointUrl('http://93.184.216.34/hooks', production)).toMatch(/https/);
    expect(await refuseEndpointUrl('https://93.184.216.34/hooks', production)).toBeUndefined();
  });

  it('WEBHOOK_ALLOW_PRIVATE_ADDRESSES is refused in production, naming the variable', () => {
    expect(() => loadWebhookConfig({ WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true' }, 'production')).toThrow(
      ConfigError,
    );
    expect(() => loadWebhookConfig({ WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true' }, 'production')).toThrow(
      /WEBHOOK_ALLOW_PRIVATE_ADDRESSES/,
    );
    expect(
      loadWebhookConfig({ WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true' }, 'development').allowPrivateAddresses,
    ).toBe(true);
    expect(loadWebhookConfig({}, 'production').requireHttps).toBe(true);
  });

  it('a delivery re-checks the address it connects to: a name now resolving to loopback gets nothing', async () => {
    const receiver = await startReceiver();
    try {
      // Saved while private addresses were allowed (as if the name resolved publicly then).
      for (const [n, url] of [receiver.url, `http://localhost:${receiver.port}/hooks`].entries()) {
        await ctx.database.db
          .insertInto('webhook_endpoints')
          .values({
            id: `whe_rebind_${n}`,
            partner_id: setup.partnerId,
            url,
            description: null,
            events: ['user.linked'],
            enabled: true,
            secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
            previous_secret: null,
            previous_secret_expires_at: null,
            created_at: ctx.clock.now(),
            updated_at: ctx.clock.now(),
          })
          .execute();
      }
      await ctx.database.db
        .insertInto('platform_accounts')
        .values({ id: 'acc_s', issuer: 'test', subject: 'acc_s', display_name: null })
        .execute();
      await ctx.database.db.transaction().execute((trx) =>
        insertMapping(trx, {
          partnerId: setup.partnerId,
          partnerUid: 'u-s',
          accountId: 'acc_s',
          region: 'KR',
          now: ctx.clock.now(),
        }),
      );
      expect(
        await runWebhookBatch(ctx.database.db, ctx.clock, {
          ...ctx.config.webhooks,
          allowPrivateAddresses: false,
        }),
      ).toBe(2);
      expect(receiver.received).toHaveLength(0);
      const attempts = await ctx.database.db
        .selectFrom('webhook_attempts')
        .select(['status_code', 'error'])
        .execute();
      expect(attempts).toHaveLength(2);
      for (const a of attempts) {
        expect(a.status_code).toBeNull();
        expect(a.error).toMatch(/refused/);
      }
    } finally {
      await receiver.close();
    }
  });
});

describe('webhook secrets', () => {
  it('is shown once, never listed, never logged; a viewer cannot register an endpoint', async () => {
    const { id, secret } = await registerEndpoint(ctx, setup.partnerId, 'https://93.184.216.34/hooks', [
      'claim.succeeded',
    ]);
    const rolled = (await ctx.admin('POST', `/admin/v1/webhook-endpoints/${id}/roll-secret`)).json()
      .secret as string;
    for (const url of ['/admin/v1/webhook-endpoints', `/admin/v1/webhook-endpoints/${id}`]) {
      const body = (await ctx.admin('GET', url)).body;
      expect(body).not.toContain(secret.slice(6));
      expect(body).not.toContain(rolled.slice(6));
    }
    const logged = JSON.stringify(ctx.logs);
    expect(ctx.logs.length).toBeGreaterThan(0);
    expect(logged).not.toContain(secret.slice(6));
    expect(logged).not.toContain(rolled.slice(6));

    const viewer = await ctx.admin('POST', '/admin/v1/admin-credentials', { name: 'v', role: 'VIEWER' });
    expect(viewer.statusCode, viewer.body).toBe(201);
    const refused = await ctx.admin(
      'POST',
      `/admin/v1/partners/${setup.partnerId}/webhook-endpoints`,
      { url: 'https://93.184.216.34/hooks', events: ['user.linked'] },
      viewer.json().secret,
    );
    expect(refused.json()).toMatchObject({ code: 901, name: 'ADMIN_PERMISSION_DENIED' });
  });
});
