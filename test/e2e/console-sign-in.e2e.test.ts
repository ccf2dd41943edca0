// The console's sign-in when the service is starting or busy for a moment (CI, 2026-12-02: the
// first-hour journey never reached the dashboard once). The printed first sign-in code leaves the
// address bar at once, and an OWNER made by it has its secret only in the tab: a 503 or an
// unreachable service on either request must be tried again, never cost the operator the session.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page, Route } from 'playwright-core';
import { issueFirstSignIn } from '../../src/admins/first-sign-in.ts';
import { startBrowserApp } from './browser-app.ts';
import type { BrowserApp } from './browser-app.ts';
import { describeUnless, needsChromium } from '../requirements.ts';

let app: BrowserApp;

const UNAVAILABLE = {
  status: 503,
  contentType: 'application/json',
  headers: { 'retry-after': '1' },
  body: JSON.stringify({
    code: 3098,
    name: 'SERVICE_UNAVAILABLE',
    message: 'the service is overloaded (eventLoopDelay 1500); retry the request shortly',
  }),
};

/** Answers the first `times` requests to `path` as a busy service would, lets the rest through. */
async function busyFor(page: Page, path: string, times: number): Promise<{ seen: () => number }> {
  let seen = 0;
  await page.route(`**${path}`, async (route: Route) => {
    seen += 1;
    if (seen <= times) await route.fulfill(UNAVAILABLE);
    else await route.continue();
  });
  return { seen: () => seen };
}

describeUnless(needsChromium())('the console signing in while the service is busy', () => {
  beforeAll(async () => {
    app = await startBrowserApp();
    // No operator credential yet: the development first sign-in is issued (as `npm start` does).
    await app.ctx.database.db.deleteFrom('admin_credentials').execute();
  }, 300_000);
  afterAll(() => app?.close());

  it('signs in with the printed code through 503s, and keeps the secret through a busy reload', async () => {
    const issued = await issueFirstSignIn(app.ctx.database.db, app.ctx.clock, {
      nodeEnv: 'development',
      adminToken: undefined,
      publicBaseUrl: app.appUrl,
    });
    if (!issued) throw new Error('no first sign-in was issued');
    const context = await app.browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);

    // The code's exchange and the first check of the new secret each meet two 503s.
    const exchange = await busyFor(page, '/admin/v1/first-sign-in', 2);
    const me = await busyFor(page, '/admin/v1/me', 2);
    await page.goto(issued.url);
    await page.getByTestId('demo-panel').waitFor();
    expect(await page.locator('header .badge').textContent()).toBe('OWNER');
    expect(exchange.seen()).toBe(3);
    expect(me.seen()).toBe(3);
    expect(page.url()).not.toContain('first-sign-in=');

    // A reload while the service stays away: the sign-in form says why, and the secret is kept.
    await page.unroute('**/admin/v1/me');
    await page.route('**/admin/v1/me', (route) => route.fulfill(UNAVAILABLE));
    await page.reload();
    await page.getByText('the service is overloaded').waitFor();
    expect(await page.getByLabel(/secret/i).count()).toBe(1);

    // The service back: the next load signs in with the kept secret, nothing typed.
    await page.unroute('**/admin/v1/me');
    await page.reload();
    await page.getByTestId('demo-panel').waitFor();
    expect(await page.locator('header .badge').textContent()).toBe('OWNER');

    // A revoked secret is refused (3200) and forgotten: the next load asks for one.
    await app.ctx.database.db.updateTable('admin_credentials').set({ revoked_at: new Date() }).execute();
    await page.reload();
    await page
      .getByText(/revoked|unknown/i)
      .first()
      .waitFor();
    expect(await page.evaluate("sessionStorage.getItem('mrs.console.secret')")).toBeNull();
    await context.close();
  }, 180_000);
});
