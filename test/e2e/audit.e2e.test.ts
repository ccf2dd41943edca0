// The console's audit log in headless Chromium against the real server: an operator's writes through
// the API are listed with who made them and what differed before and after, the filter narrows the
// list to one kind of entity, and the page has no sideways scroll and no axe violations on a phone.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { ADMIN_TOKEN, startTestApp } from '../harness.ts';
import type { TestContext } from '../harness.ts';
import { CHROMIUM, freePort, hasChromium, launchChromium } from './browser.ts';
import { builtWeb } from './web-build.ts';
import { accessibilityViolations, layoutProblems } from './console-checks.ts';
import { describeUnless, needsChromium } from '../requirements.ts';

const runBrowser = hasChromium || process.env.REQUIRE_BROWSER === '1';
if (!runBrowser) console.warn(`audit e2e tests SKIPPED: no Chromium at ${CHROMIUM}`);

let ctx: TestContext;
let browser: Browser;
let distDir: string;
let appUrl: string;
let partnerId: string;
let partnerEntityType: string;

describeUnless(needsChromium())('the audit log page', () => {
  beforeAll(async () => {
    distDir = await builtWeb();
    const port = await freePort();
    appUrl = `http://127.0.0.1:${port}`;
    ctx = await startTestApp({ env: { PUBLIC_BASE_URL: appUrl, WEB_DIST_DIR: distDir } });
    await ctx.app.listen({ port, host: '127.0.0.1' });
    browser = await launchChromium();

    // Two writes of one partner (create, rename) and a write of another kind (an asset).
    const created = await ctx.admin('POST', '/admin/v1/partners', { name: 'Sunrise Games' });
    expect(created.statusCode).toBe(201);
    partnerId = created.json<{ id: string }>().id;
    const renamed = await ctx.admin('PATCH', `/admin/v1/partners/${partnerId}`, { name: 'Moonrise Games' });
    expect(renamed.statusCode).toBe(200);
    const asset = await ctx.admin('POST', '/admin/v1/reward-assets', {
      symbol: 'AUD',
      name: 'Audit points',
      decimals: 0,
    });
    expect(asset.statusCode).toBe(201);
    const events = (await ctx.admin('GET', '/admin/v1/audit-events')).json<{
      items: Array<{ entityType: string; entityId: string }>;
    }>();
    partnerEntityType = events.items.find((e) => e.entityId === partnerId)?.entityType as string;
    expect(partnerEntityType).toBeTruthy();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await ctx?.close();
  });

  for (const viewport of [
    { width: 1280, height: 800 },
    { width: 390, height: 844 },
  ]) {
    it(`lists the rename with who made it and the name before and after, filtered by entity (${viewport.width}px)`, async () => {
      const context = await browser.newContext({
        viewport,
        ...(viewport.width < 500 && { isMobile: true, hasTouch: true }),
        locale: 'en-US',
        // axe-core goes in as an inline script, which the console's CSP refuses.
        bypassCSP: true,
      });
      await context.addInitScript(`sessionStorage.setItem('mrs.console.secret', '${ADMIN_TOKEN}')`);
      const page = await context.newPage();
      page.setDefaultTimeout(10_000);
      try {
        await page.goto(`${appUrl}/console/audit`);
        await page.getByRole('heading', { name: 'Audit log' }).waitFor();
        // Unfiltered, the asset's creation is listed too.
        await page.getByText('Audit points').first().waitFor({ state: 'attached' });

        await page.getByLabel('Entity type').fill(partnerEntityType);
        await page.getByRole('button', { name: 'Show changes' }).click();
        await page.waitForURL(/entityType=/);
        const rows = page.locator('main tbody tr');
        await expect.poll(() => rows.count()).toBe(2);
        expect(await page.getByText('Audit points').count()).toBe(0);

        const action = (name: string) =>
          page.locator('td:nth-child(3)', { hasText: new RegExp(`^${name}$`) });
        const update = rows.filter({ has: action('updated') });
        expect(await update.count()).toBe(1);
        // Who: the OWNER credential the harness signs in with.
        expect(await update.locator('td').nth(1).innerText()).toMatch(/\S/);
        expect(await update.innerText()).toContain(partnerId);
        await update.getByText(/fields? changed/).click();
        expect(await update.getByLabel('before').first().innerText()).toBe('Sunrise Games');
        expect(await update.getByLabel('after').first().innerText()).toBe('Moonrise Games');
        expect(await rows.filter({ has: action('created') }).count()).toBe(1);

        expect(await layoutProblems(page)).toEqual([]);
        expect(await accessibilityViolations(page)).toEqual([]);
      } finally {
        await context.close();
      }
    }, 60_000);
  }
});
