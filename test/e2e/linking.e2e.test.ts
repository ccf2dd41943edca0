// End to end in a real headless Chromium: a tiny partner site sends the browser to the login,
// the user signs in on the embedded development provider's page, comes back to the partner with
// a token, and the partner's server connects it; the page then shows the link confirmed.
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startTestApp } from '../harness.ts';
import type { TestContext } from '../harness.ts';
import { createLinkingPartner } from '../login-helpers.ts';
import { freePort, launchChromium } from './browser.ts';
import { describeUnless, needsChromium } from '../requirements.ts';

let ctx: TestContext;
let partnerSite: Server;
let browser: Browser;
let appUrl: string;
let partnerUrl: string;

/** The partner: a page with a link button, and a return page whose server side calls connect. */
function startPartnerSite(partner: { partnerId: string; apiKey: string }, port: number): Promise<Server> {
  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', partnerUrl);
      res.setHeader('content-type', 'text/html; charset=utf-8');
      if (url.pathname === '/') {
        const auth = new URL('/v1/mission-users/auth', appUrl);
        auth.search = new URLSearchParams({
          partnerId: partner.partnerId,
          redirectUrl: `${partnerUrl}/linked`,
          browserType: 'WEB',
        }).toString();
        res.end(
          `<!doctype html><title>Partner app</title><h1>Partner app</h1><a id="link" href="${auth.href}">Link account</a>`,
        );
        return;
      }
      if (url.pathname === '/linked') {
        const token = url.searchParams.get('token');
        const headers = {
          'content-type': 'application/json',
          'x-partner-id': partner.partnerId,
          'x-api-key': partner.apiKey,
        };
        const connected = await fetch(`${appUrl}/v1/mission-users/connect`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ token, partnerUid: 'partner-user-42', region: 'JP' }),
        });
        const check = await fetch(`${appUrl}/v1/mission-users?partnerUid=partner-user-42`, { headers });
        const linked = ((await check.json()) as { result: boolean }).result;
        res.end(
          `<!doctype html><title>Partner app</title><p id="status">connect ${connected.status}; ${linked ? 'Account linked' : 'Not linked'}</p>`,
        );
        return;
      }
      res.statusCode = 404;
      res.end('not found');
    })();
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

describeUnless(needsChromium())('linking in a real browser', () => {
  beforeAll(async () => {
    const appPort = await freePort();
    const partnerPort = await freePort();
    appUrl = `http://127.0.0.1:${appPort}`;
    // Another host name than the app's, so the two sites keep their cookies apart.
    partnerUrl = `http://localhost:${partnerPort}`;
    ctx = await startTestApp({ env: { PUBLIC_BASE_URL: appUrl }, now: new Date().toISOString() });
    await ctx.app.listen({ port: appPort, host: '127.0.0.1' });
    const partner = await createLinkingPartner(ctx, [`${partnerUrl}/linked`]);
    partnerSite = await startPartnerSite(partner, partnerPort);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => partnerSite?.close(resolve));
    await ctx?.close();
  });

  it('partner page -> link account -> development login -> back with a token -> linked', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await page.goto(`${partnerUrl}/`);
    await page.getByRole('link', { name: 'Link account' }).click();
    await page.getByLabel('User name').waitFor();
    expect(await page.getByRole('alert').first().textContent()).toContain('Development only');
    mkdirSync('docs/screenshots', { recursive: true });
    await page.screenshot({ path: 'docs/screenshots/dev-login-phone.png' });
    await page.getByLabel('User name').fill('e2e-user');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.href.startsWith(`${partnerUrl}/linked`));
    expect(new URL(page.url()).searchParams.get('token')).toMatch(/^mtk_/);
    expect(await page.locator('#status').textContent()).toBe('connect 200; Account linked');

    const mapping = await ctx.admin(
      'GET',
      `/admin/v1/partners/${(await ctx.database.db.selectFrom('user_mappings').select('partner_id').executeTakeFirstOrThrow()).partner_id}/users/partner-user-42/mapping`,
    );
    expect(mapping.json()).toMatchObject({ region: 'JP', account: { subject: 'e2e-user' } });
    await page.close();
  });
});
