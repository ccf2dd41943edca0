// End to end in headless Chromium against the real server: an operator sets up a partner, an asset,
// a budget, a promotion and a rewarded mission in the console; a partner's site links a user through
// the login; the partner's server reports progress; the user watches the gauge fill and the reward
// arrive on the mission page; a lucky draw is run and seen; a VIEWER can change nothing.
// Screenshots of each page at phone and desktop sizes go to docs/screenshots/.
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ADMIN_TOKEN, startTestApp } from '../harness.ts';
import type { TestContext } from '../harness.ts';
import { runPayoutBatch } from '../../src/payout/worker.ts';
import { createRequire } from 'node:module';
import { CHROMIUM, freePort, hasChromium, launchChromium } from './browser.ts';
import { builtWeb, firstLoadJsGzipBytes } from './web-build.ts';
import { describeUnless, needsChromium } from '../requirements.ts';

const runBrowser = hasChromium || process.env.REQUIRE_BROWSER === '1';
if (!runBrowser) {
  console.warn(
    `web e2e tests SKIPPED: no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH)`,
  );
}

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };
const SHOTS = 'docs/screenshots';

let ctx: TestContext;
let browser: Browser;
let partnerSite: Server;
let distDir: string;
let appUrl: string;
let partnerUrl: string;
/** What the operator set up in the console, for the partner's server. */
const partner = { id: '', apiKey: '' };

/** The page at phone size, then at desktop size, as docs/screenshots/<name>-{phone,desktop}.png. */
async function shoot(page: Page, name: string): Promise<void> {
  const original = page.viewportSize();
  for (const [size, viewport] of [
    ['phone', PHONE],
    ['desktop', DESKTOP],
  ] as const) {
    await page.setViewportSize(viewport);
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: `${SHOTS}/${name}-${size}.png` });
  }
  if (original) await page.setViewportSize(original);
}

/** The partner's server: calls our partner API with the key the operator created. */
async function partnerApi(method: string, url: string, body?: unknown): Promise<Response> {
  return fetch(`${appUrl}${url}`, {
    method,
    headers: { 'content-type': 'application/json', 'x-partner-id': partner.id, 'x-api-key': partner.apiKey },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
}

/** A partner site: a page with a link button; its return page's server side calls connect. */
function startPartnerSite(port: number): Promise<Server> {
  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', partnerUrl);
      res.setHeader('content-type', 'text/html; charset=utf-8');
      if (url.pathname === '/') {
        const auth = new URL('/v1/mission-users/auth', appUrl);
        auth.search = new URLSearchParams({
          partnerId: partner.id,
          redirectUrl: `${partnerUrl}/linked`,
          browserType: 'WEB',
        }).toString();
        res.end(
          `<!doctype html><title>Acme Games</title><h1>Acme Games</h1><a href="${auth.href}">Link account</a>`,
        );
        return;
      }
      if (url.pathname === '/linked') {
        const connected = await partnerApi('POST', '/v1/mission-users/connect', {
          token: url.searchParams.get('token'),
          partnerUid: 'player-7',
          region: 'KR',
        });
        res.end(
          `<!doctype html><title>Acme Games</title><p id="status">connect ${connected.status}</p><a href="${appUrl}/app">Open my missions</a>`,
        );
        return;
      }
      res.statusCode = 404;
      res.end('not found');
    })();
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

async function signInToConsole(context: BrowserContext, secret: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${appUrl}/console`);
  await page.getByLabel('Admin secret').fill(secret);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
  return page;
}

const AXE_SCRIPT = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/** axe-core's WCAG 2.0/2.1 A and AA rules on the page as it is; the violations, described. */
async function accessibilityViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE_SCRIPT });
  // A string, not a function: this runs in the page, whose globals the test's types do not know.
  const violations = await page.evaluate<string[]>(`axe
    .run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })
    .then((result) => result.violations.map((v) => v.impact + ' ' + v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`);
  return violations;
}

/** A section of the console, by its link in the navigation. */
async function nav(page: Page, section: string): Promise<void> {
  await page
    .getByRole('navigation', { name: 'Console sections' })
    .getByRole('link', { name: section, exact: true })
    .click();
}

async function gaugeText(page: Page, missionKey: string): Promise<string> {
  return (
    (await page.locator(`[data-mission-key="${missionKey}"] [data-testid="gauge-text"]`).textContent()) ?? ''
  );
}

describeUnless(needsChromium())('the console and the mission page in a real browser', () => {
  beforeAll(async () => {
    distDir = await builtWeb();
    const appPort = await freePort();
    const partnerPort = await freePort();
    appUrl = `http://127.0.0.1:${appPort}`;
    // Another host name than the app's, so the two sites keep their cookies apart.
    partnerUrl = `http://localhost:${partnerPort}`;
    ctx = await startTestApp({
      env: { PUBLIC_BASE_URL: appUrl, WEB_DIST_DIR: distDir },
      now: new Date().toISOString(),
    });
    await ctx.app.listen({ port: appPort, host: '127.0.0.1' });
    partnerSite = await startPartnerSite(partnerPort);
    browser = await launchChromium();
    mkdirSync(SHOTS, { recursive: true });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => (partnerSite ? partnerSite.close(resolve) : resolve(undefined)));
    await ctx?.close();
  });

  it('keeps the first page of each app under 200 kB of gzipped JavaScript', () => {
    for (const page of ['app', 'console'] as const) {
      const { files, bytes } = firstLoadJsGzipBytes(distDir, page);
      expect(files.length).toBeGreaterThan(0);
      expect(bytes, `${page}: ${files.join(', ')}`).toBeLessThan(200_000);
    }
  });

  it('an operator sets up a partner, asset, budget, promotion and rewarded mission in the console', async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const signIn = await context.newPage();
    await signIn.goto(`${appUrl}/console`);
    await signIn.getByLabel('Admin secret').waitFor();
    await shoot(signIn, 'console-sign-in');
    // A wrong secret is refused in words.
    await signIn.getByLabel('Admin secret').fill('not-the-secret-0000');
    await signIn.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => signIn.getByRole('alert').textContent()).toContain('3200');
    await signIn.close();

    const page = await signInToConsole(context, ADMIN_TOKEN);

    // Partner, with its allow-list and redirect URL; an API key shown once.
    await nav(page, 'Partners');
    await page.getByLabel('Name', { exact: true }).fill('Acme Games');
    await page.getByLabel('Allowed server addresses').fill('127.0.0.1\n::1');
    await page.getByLabel('Redirect URLs').fill(`${partnerUrl}/linked`);
    await page.getByRole('button', { name: 'Create partner' }).click();
    await page.getByRole('heading', { name: /Acme Games/ }).waitFor();
    partner.id = new URL(page.url()).pathname.split('/').pop() ?? '';
    expect(partner.id).toMatch(/^p/);
    await page.getByLabel('Key name (optional)').fill('production');
    await page.getByRole('button', { name: 'Create API key' }).click();
    partner.apiKey = await page.getByLabel(/New API key/).inputValue();
    expect(partner.apiKey.length).toBeGreaterThan(20);
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await expect.poll(() => page.getByLabel(/New API key/).count()).toBe(0);
    await shoot(page, 'console-partner');

    // A revoked key stops working at once.
    await page.getByLabel('Key name (optional)').fill('temporary');
    await page.getByRole('button', { name: 'Create API key' }).click();
    const temporaryKey = await page.getByLabel(/New API key/).inputValue();
    page.once('dialog', (dialog) => void dialog.accept());
    // The console names a key by its first 13 characters: 'mrk_test_' and four random ones.
    await page.getByRole('button', { name: `Revoke key ${temporaryKey.slice(0, 13)}` }).click();
    await expect
      .poll(
        async () =>
          (
            await fetch(`${appUrl}/v1/mission-users?partnerUid=x`, {
              headers: { 'x-partner-id': partner.id, 'x-api-key': temporaryKey },
            })
          ).status,
      )
      .toBe(401);
    expect((await partnerApi('GET', '/v1/mission-users?partnerUid=x')).status).toBe(200);

    // Reward asset and a fixed budget.
    await nav(page, 'Reward assets');
    await page.getByLabel('Symbol').fill('PNT');
    await page.getByLabel('Name', { exact: true }).fill('Points');
    await page.getByLabel('Decimals').fill('2');
    await page.getByRole('button', { name: 'Create asset' }).click();
    await page.getByRole('cell', { name: /PNT/ }).waitFor();
    await nav(page, 'Budgets');
    await page.getByLabel('Name', { exact: true }).fill('Launch points');
    await page.getByLabel('Total').fill('1000');
    await page.getByRole('button', { name: 'Create budget' }).click();
    await page.getByRole('heading', { name: 'Launch points' }).waitFor();
    expect(await page.getByTestId('budget-remaining').textContent()).toBe('1,000 PNT');

    // An ACTIVE promotion: its partner, type, start and time zone are then locked.
    await nav(page, 'Promotions');
    await page.getByLabel('Title', { exact: true }).fill('Winter games');
    await page.getByLabel('Starts').fill('2026-01-01T00:00');
    await page.getByLabel('Status', { exact: true }).last().selectOption('ACTIVE');
    await page.getByRole('button', { name: 'Create promotion' }).click();
    await page.getByRole('heading', { name: /Winter games/ }).waitFor();
    expect(await page.getByLabel('Time zone').isDisabled()).toBe(true);
    expect(await page.getByLabel('Type', { exact: true }).isDisabled()).toBe(true);
    expect(await page.getByLabel('Partner', { exact: true }).isDisabled()).toBe(true);
    expect(await page.getByLabel('Starts').isDisabled()).toBe(true);
    expect(await page.getByLabel('Title', { exact: true }).isDisabled()).toBe(false);

    // A group and a daily mission with a target of 3 and a reward of 12.5 points.
    await page.getByLabel('Group title').fill('Daily');
    await page.getByRole('button', { name: 'Add group' }).click();
    await page.getByText('Add a mission to Daily').click();
    const addMission = async (key: string, title: string, target?: string) => {
      await page.getByLabel('Mission key').fill(key);
      // The mission form's own Title (the promotion's folded settings have one too).
      await page
        .locator('details', { hasText: 'Add a mission to Daily' })
        .getByLabel('Title', { exact: true })
        .first()
        .fill(title);
      await page.getByLabel('Recurrence').selectOption('DAILY');
      await page.getByLabel('Target (optional)').fill(target ?? '');
      await page.getByRole('button', { name: 'Add mission' }).click();
    };
    await addMission('play-3-games', 'Play 3 games', '3');
    await page.getByRole('cell', { name: /^Play 3 games/ }).waitFor();
    // The same key again: the API's error code, in words.
    await addMission('play-3-games', 'Again');
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toContain('already has a mission with this key');
    expect(await page.getByRole('alert').textContent()).toContain('3300');
    await page.getByLabel('Mission key').fill('daily-spin');
    await page
      .locator('details', { hasText: 'Add a mission to Daily' })
      .getByLabel('Title', { exact: true })
      .first()
      .fill('Spin the wheel');
    await page.getByLabel('Target (optional)').fill('');
    await page.getByRole('button', { name: 'Add mission' }).click();
    await page.getByRole('cell', { name: /^Spin the wheel/ }).waitFor();

    await page.getByRole('button', { name: 'Edit Play 3 games' }).click();
    await page.getByLabel('Amount per completion').fill('12.5');
    await page.getByRole('button', { name: 'Set reward' }).click();
    await page.getByRole('cell', { name: /12\.5 PNT/ }).waitFor();
    await page.getByRole('button', { name: 'Edit Play 3 games' }).click();
    await shoot(page, 'console-promotion');
    await context.close();
  }, 180_000);

  it('the partner links a user and reports progress; the user sees the gauge move and the reward paid', async () => {
    const context = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
    const page = await context.newPage();
    await page.goto(`${partnerUrl}/`);
    await page.getByRole('link', { name: 'Link account' }).click();
    await page.getByLabel('User name').fill('mina');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.href.startsWith(`${partnerUrl}/linked`));
    expect(await page.locator('#status').textContent()).toBe('connect 200');
    await page.getByRole('link', { name: 'Open my missions' }).click();

    // Signed in by the login: the missions, nothing done yet.
    await page.locator('[data-mission-key="play-3-games"]').waitFor();
    expect(await gaugeText(page, 'play-3-games')).toBe('0 / 3');
    await expect.poll(() => page.getByText('Reward: 12.5 PNT').isVisible()).toBe(true);

    expect(
      (
        await partnerApi('POST', '/v1/achieve', {
          partnerUid: 'player-7',
          missionKey: 'play-3-games',
          completed: false,
          metadata: { target: 3, current: 2 },
        })
      ).status,
    ).toBe(200);
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect.poll(() => gaugeText(page, 'play-3-games')).toBe('2 / 3');
    expect(
      await page.getByRole('progressbar', { name: 'Play 3 games progress' }).getAttribute('aria-valuenow'),
    ).toBe('2');

    expect(
      (
        await partnerApi('POST', '/v1/achieve', {
          partnerUid: 'player-7',
          missionKey: 'play-3-games',
          completed: true,
          metadata: { target: 3, current: 3 },
        })
      ).status,
    ).toBe(200);
    // The payout worker pays the claim into the ledger.
    expect(await runPayoutBatch(ctx.database.db, ctx.clock)).toBe(1);
    await page.reload();
    await expect.poll(() => gaugeText(page, 'play-3-games')).toBe('3 / 3');
    await expect
      .poll(() => page.locator('[data-mission-key="play-3-games"]').getByText('Completed').isVisible())
      .toBe(true);
    expect(await page.getByTestId('balance-PNT').textContent()).toBe('12.5');
    expect(await page.locator('.claims').textContent()).toContain('12.5 PNT');
    expect(await page.locator('.claims').textContent()).toContain('succeeded');
    await shoot(page, 'mission-page');

    // Signed out, the page offers the sign-in; through /v1/login?returnTo=/app&prompt=login the
    // provider asks for the login again (so another user could sign in), then it comes back here.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('link', { name: 'Sign in' }).waitFor();
    expect(await page.locator('[data-mission-key]').count()).toBe(0);
    expect(
      new URL(
        (await page.getByRole('link', { name: 'Sign in' }).getAttribute('href')) ?? '',
        appUrl,
      ).searchParams.get('returnTo'),
    ).toBe('/app');
    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.getByLabel('User name').fill('mina');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${appUrl}/app`);
    await expect.poll(() => gaugeText(page, 'play-3-games')).toBe('3 / 3');
    await context.close();
  }, 180_000);

  it('the console shows the budget, the claim and the day; a lucky draw is run and the user sees it', async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await signInToConsole(context, ADMIN_TOKEN);
    await expect.poll(() => page.locator('.stat').first().textContent()).toBe('1');
    await shoot(page, 'console-dashboard');

    await nav(page, 'Budgets');
    await page.getByRole('link', { name: 'Launch points' }).click();
    await expect.poll(() => page.getByTestId('budget-paid').textContent()).toBe('12.5 PNT');
    expect(await page.getByTestId('budget-remaining').textContent()).toBe('987.5 PNT');
    // One day of movements is not a trend: the page says so rather than drawing a dot (issue #31).
    await page.getByTestId('chart-not-enough').waitFor();
    await shoot(page, 'console-budget');

    await nav(page, 'Claims');
    await page.getByLabel('Status').selectOption('SUCCEEDED');
    await page.getByRole('button', { name: 'Show claims' }).click();
    await page.getByRole('cell', { name: 'player-7' }).waitFor();
    await page.getByRole('button', { name: /^History/ }).click();
    await page.getByText('REQUESTED → SUCCEEDED', { exact: false }).waitFor();
    await shoot(page, 'console-claims');

    // A lucky-draw budget backs the spin mission; the user earns a ticket.
    await nav(page, 'Budgets');
    await page.getByLabel('Name', { exact: true }).fill('Prize pot');
    await page.getByLabel('Type').selectOption('LUCKY_DRAW');
    await page.getByLabel('Total').fill('500');
    await page.getByRole('button', { name: 'Create budget' }).click();
    await page.getByRole('heading', { name: 'Prize pot' }).waitFor();
    await nav(page, 'Promotions');
    await page.getByRole('link', { name: 'Winter games' }).click();
    await page.getByRole('button', { name: 'Edit Spin the wheel' }).click();
    await page.getByLabel('Reward type').selectOption('LUCKY_DRAW');
    await page.getByRole('button', { name: 'Set reward' }).click();
    await page.getByRole('cell', { name: /lucky-draw ticket/ }).waitFor();
    expect(
      (
        await partnerApi('POST', '/v1/achieve', {
          partnerUid: 'player-7',
          missionKey: 'daily-spin',
          completed: true,
        })
      ).status,
    ).toBe(200);

    await nav(page, 'Lucky draws');
    const createForm = page.getByRole('form', { name: 'Create a draw' });
    await createForm.getByLabel('Title', { exact: true }).fill('Winter prize draw');
    await createForm.getByLabel('Prize per winner').fill('100');
    // A draw runs at or after its time and takes the tickets received by its close (the draw time
    // here): a minute after the ticket (the form's minute, in the browser's zone). The close may not
    // be in the past when the draw is created; the service's clock moves past it afterwards.
    const drawAt = new Date(Math.ceil((ctx.clock.now().getTime() + 1) / 60_000) * 60_000);
    await createForm.getByLabel('Draw at').fill(
      await page.evaluate(
        `(() => { const d = new Date(${drawAt.getTime()}); const p = (n) => String(n).padStart(2, '0');
            return d.getFullYear() + '-' + p(d.getMonth() + 1) + '-' + p(d.getDate()) + 'T' + p(d.getHours()) + ':' + p(d.getMinutes()); })()`,
      ),
    );
    await page.getByRole('button', { name: 'Create draw' }).click();
    await page.getByRole('heading', { name: /Winter prize draw/ }).waitFor();
    ctx.clock.set(new Date(drawAt.getTime() + 60_000));
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Run draw now Winter prize draw' }).click();
    await page.getByText('Winning tickets').waitFor();
    await shoot(page, 'console-draws');
    await context.close();

    // The user: the ticket is drawn and won; the draw page shows the published seed.
    const userContext = await browser.newContext({ viewport: PHONE, isMobile: true });
    const user = await userContext.newPage();
    await user.goto(`${appUrl}/v1/login?returnTo=/app`);
    await user.getByLabel('User name').fill('mina');
    await user.getByRole('button', { name: 'Sign in' }).click();
    await user.waitForURL(`${appUrl}/app`);
    await user.getByRole('button', { name: 'Drawn' }).click();
    await user.getByText('won').waitFor();
    await user.getByRole('link', { name: 'See the draw' }).click();
    await user.getByRole('heading', { name: /Winter prize draw/ }).waitFor();
    // The seed (second hex value, after the commitment): shortened on the page, whole in data-value.
    expect(await user.locator('dd [data-value]').nth(1).getAttribute('data-value')).toMatch(
      /^[0-9a-f]{16,}$/,
    );
    await shoot(user, 'mission-draw');
    await userContext.close();
  }, 180_000);

  it('a VIEWER sees no write controls, and the server refuses a write anyway (901)', async () => {
    const created = await ctx.admin('POST', '/admin/v1/admin-credentials', {
      name: 'Auditor',
      role: 'VIEWER',
    });
    const secret = created.json<{ secret: string }>().secret;
    const context = await browser.newContext({ viewport: PHONE });
    const page = await signInToConsole(context, secret);
    await page.getByRole('note').getByText('Read-only').waitFor();

    await nav(page, 'Partners');
    await page.getByRole('link', { name: 'Acme Games' }).waitFor();
    expect(await page.getByRole('button', { name: 'Create partner' }).count()).toBe(0);
    await page.getByRole('link', { name: 'Acme Games' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    expect(await page.getByLabel('Name', { exact: true }).isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: /Save|Create|Revoke/ }).count()).toBe(0);

    await nav(page, 'Promotions');
    await page.getByRole('link', { name: 'Winter games' }).click();
    await page.getByRole('cell', { name: /^Play 3 games/ }).waitFor();
    expect(await page.getByRole('button', { name: /Save|Add|Edit|Set reward/ }).count()).toBe(0);
    expect(await page.getByLabel('Title', { exact: true }).isDisabled()).toBe(true);

    for (const section of ['Reward assets', 'Budgets', 'Claims', 'Lucky draws']) {
      await nav(page, section);
      await page.getByRole('heading', { name: section, level: 1 }).waitFor();
      expect(
        await page.getByRole('button', { name: /Create|Reject|Retry|Run|Add to budget/ }).count(),
        section,
      ).toBe(0);
    }
    await shoot(page, 'console-viewer');

    // Even a hand-made request from the signed-in page is refused by the service.
    const status = await page.evaluate(async (bearer) => {
      const response = await fetch('/admin/v1/partners', {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Sneaky' }),
      });
      return { status: response.status, body: (await response.json()) as { code: number } };
    }, secret);
    expect(status).toMatchObject({ status: 403, body: { code: 901 } });
    const partners = (await ctx.admin('GET', '/admin/v1/partners')).json<{ items: Array<{ name: string }> }>()
      .items;
    expect(partners.map((p) => p.name)).toEqual(['Acme Games']);
    await context.close();
  }, 120_000);

  it('every page passes the WCAG 2 A/AA checks of axe-core, at phone and desktop sizes', async () => {
    // axe is injected as an inline script, which the pages' CSP rightly forbids: bypass it here only.
    const context = await browser.newContext({ viewport: DESKTOP, bypassCSP: true });
    const page = await context.newPage();
    await page.goto(`${appUrl}/console`);
    await page.getByLabel('Admin secret').waitFor();
    const found: string[] = [];
    const check = async (label: string) => {
      for (const viewport of [DESKTOP, PHONE]) {
        await page.setViewportSize(viewport);
        for (const v of await accessibilityViolations(page))
          found.push(`${label} (${viewport.width}px): ${v}`);
      }
      await page.setViewportSize(DESKTOP);
    };
    await check('console sign-in');
    // By keyboard only: the secret field takes the focus first, Enter submits.
    await page.keyboard.press('Tab');
    expect(await page.evaluate("document.activeElement.getAttribute('name')")).toBe('secret');
    await page.keyboard.type(ADMIN_TOKEN);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await page.locator('.stat').first().waitFor();
    await check('dashboard');
    const visits: Array<[string, () => Promise<void>]> = [
      ['partners', () => nav(page, 'Partners')],
      ['partner', () => page.getByRole('link', { name: 'Acme Games' }).click()],
      ['promotions', () => nav(page, 'Promotions')],
      [
        'promotion',
        async () => {
          await page.getByRole('link', { name: 'Winter games' }).click();
          await page.getByRole('cell', { name: /^Play 3 games/ }).waitFor();
          await page.getByRole('button', { name: 'Edit Play 3 games' }).click();
        },
      ],
      ['reward assets', () => nav(page, 'Reward assets')],
      ['budgets', () => nav(page, 'Budgets')],
      [
        'budget',
        async () => {
          await page.getByRole('link', { name: 'Launch points' }).click();
          await page.getByTestId('chart-not-enough').waitFor();
        },
      ],
      [
        'claims',
        async () => {
          await nav(page, 'Claims');
          await page.getByRole('cell', { name: 'player-7' }).first().waitFor();
        },
      ],
      ['draws', () => nav(page, 'Lucky draws')],
    ];
    for (const [label, go] of visits) {
      await go();
      await page.waitForLoadState('networkidle');
      await check(label);
    }

    await page.goto(`${appUrl}/v1/login?returnTo=/app`);
    await page.getByLabel('User name').fill('mina');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${appUrl}/app`);
    await page.locator('[data-mission-key="play-3-games"]').waitFor();
    await check('mission page');
    // The ticket filters work from the keyboard: tab to "Drawn", press Enter.
    for (let i = 0; i < 60 && (await page.evaluate('document.activeElement.textContent')) !== 'Drawn'; i++)
      await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    expect(await page.getByRole('button', { name: 'Drawn' }).getAttribute('aria-pressed')).toBe('true');
    await page.getByRole('link', { name: 'See the draw' }).click();
    await page.getByRole('heading', { name: /Winter prize draw/ }).waitFor();
    await check('draw page');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('link', { name: 'Sign in' }).waitFor();
    await check('mission page, signed out');
    await context.close();
    expect(found).toEqual([]);
  }, 180_000);
});
