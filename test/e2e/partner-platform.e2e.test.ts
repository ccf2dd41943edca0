// The partner platform in a real browser: a preview deployment shows its banner on the console and
// the mission page (a production one does not), and an operator registers a webhook endpoint in the
// console, sees its secret once, watches a delivery's attempts and re-sends it; the receiver verifies
// every delivery with the standardwebhooks package.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { ADMIN_TOKEN, partnerCall, setupMission, startTestApp } from '../harness.ts';
import type { MissionSetup, TestContext } from '../harness.ts';
import { linkUsers } from '../link-users.ts';
import { startReceiver } from '../webhooks/receiver.ts';
import { runWebhookBatch } from '../../src/webhooks/delivery.ts';
import { freePort, launchChromium } from './browser.ts';
import { builtWeb } from './web-build.ts';
import { describeUnless, needsChromium } from '../requirements.ts';

const PRODUCTION = {
  NODE_ENV: 'production',
  SERVICE_ENVIRONMENT: 'production',
  LOGIN_OIDC_ISSUER: 'https://access.line.me',
  LOGIN_OIDC_CLIENT_ID: '1234567890',
  LOGIN_OIDC_CLIENT_SECRET: 'secret',
};

interface Deployment {
  ctx: TestContext;
  base: string;
}

async function deploy(environment: 'preview' | 'production', distDir: string): Promise<Deployment> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const ctx = await startTestApp({
    env: {
      // Production insists on an https base address; the pages fetch relative paths, so the
      // loopback address serves them all the same.
      PUBLIC_BASE_URL: environment === 'production' ? 'https://api.rewards.example' : base,
      WEB_DIST_DIR: distDir,
      // The test's receiver is on loopback, which only a non-production deployment may call.
      ...(environment === 'production' ? PRODUCTION : { WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true' }),
    },
  });
  await ctx.app.listen({ port, host: '127.0.0.1' });
  return { ctx, base };
}

async function signInToConsole(page: Page, base: string): Promise<void> {
  await page.goto(`${base}/console`);
  await page.getByLabel('Admin secret').fill(ADMIN_TOKEN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
}

describeUnless(needsChromium())('the partner platform in the browser', () => {
  let distDir: string;
  let browser: Browser;
  let preview: Deployment;
  beforeAll(async () => {
    // The pages are built before any app starts: an app started first would serve "not built".
    distDir = await builtWeb();
    preview = await deploy('preview', distDir);
    browser = await launchChromium();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await preview?.ctx.close();
  });

  it('a preview deployment shows its banner on the console and the mission page; production does not', async () => {
    const page = await browser.newPage();
    await signInToConsole(page, preview.base);
    const banner = page.locator('[data-environment="preview"]');
    await banner.waitFor();
    expect(await banner.textContent()).toContain('mrk_test_');
    await page.goto(`${preview.base}/app`);
    await banner.waitFor();

    const production = await deploy('production', distDir);
    try {
      for (const pagePath of ['/app', '/console']) {
        // The page asks the deployment which it is before deciding: wait for that answer, then look.
        const answer = page.waitForResponse((r) => r.url().endsWith('/v1/environment'));
        await page.goto(`${production.base}${pagePath}`);
        expect((await answer).status()).toBe(200);
        await page.waitForLoadState('networkidle');
        expect(await page.evaluate(() => fetch('/v1/environment').then((r) => r.json()))).toEqual({
          environment: 'production',
        });
        expect(await banner.count()).toBe(0);
      }
    } finally {
      await production.ctx.close();
      await page.close();
    }
  }, 120_000);

  it('an operator registers an endpoint, sees its secret once, and re-sends a delivery', async () => {
    const { ctx, base } = preview;
    const receiver = await startReceiver();
    const page = await browser.newPage();
    try {
      const setup: MissionSetup = await setupMission(ctx, { missionKey: 'daily-login', recurrence: 'DAILY' });
      await signInToConsole(page, base);
      await page.getByRole('link', { name: 'Webhooks' }).first().click();
      await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();

      const form = page.locator('form', { has: page.getByRole('button', { name: 'Register endpoint' }) });
      await form.getByLabel('Partner').selectOption(setup.partnerId);
      await form.getByLabel('URL').fill(receiver.url);
      await form.getByLabel('mission.completed').check();
      await form.getByRole('button', { name: 'Register endpoint' }).click();

      // The secret is on screen once; the endpoint list never carries it.
      const secret =
        (await page
          .locator('code', { hasText: /^whsec_/ })
          .first()
          .textContent()) ?? '';
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
      await page.getByRole('button', { name: 'I have stored it' }).click();
      await expect.poll(() => page.locator('code', { hasText: /^whsec_/ }).count()).toBe(0);
      await page.getByRole('heading', { name: receiver.url }).waitFor();

      // A completion is an event the endpoint asked for: delivered, signed with the secret shown.
      await linkUsers(ctx, setup.partnerId, ['u-1']);
      const completed = await partnerCall(ctx, setup, {
        method: 'POST',
        url: '/v1/achieve',
        body: { partnerUid: 'u-1', missionKey: 'daily-login', completed: true },
      });
      expect(completed.statusCode).toBe(200);
      const deliver = () =>
        runWebhookBatch(ctx.database.db, ctx.clock, { ...ctx.config.webhooks, timeoutMs: 2000 });
      expect(await deliver()).toBe(1);
      expect(receiver.verified(secret).map((m) => m.payload.type)).toEqual(['mission.completed']);

      // The console shows the message and its attempt; a re-send delivers it again, same id.
      await page.reload();
      const message = page.locator('li', { hasText: 'mission.completed' }).first();
      await message.getByRole('button', { name: /Show attempts/ }).click();
      await message.getByRole('cell', { name: '204' }).waitFor();
      await message.getByRole('button', { name: /Re-send/ }).click();
      await expect.poll(deliver, { timeout: 10_000 }).toBe(1);
      const got = receiver.verified(secret);
      expect(got).toHaveLength(2);
      expect(got[1]?.id).toBe(got[0]?.id);
    } finally {
      await page.close();
      await receiver.close();
    }
  }, 120_000);
});
