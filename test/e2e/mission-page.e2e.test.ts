// The end user's mission page in headless Chromium: its bugs (a completed mission without a target,
// a completed one-time mission, a streak reward's name, signing in as someone else after signing
// out), its languages (the switcher, ?lang=, the browser's languages, titles per language) and its
// accessibility at phone and desktop sizes. Screenshots: docs/screenshots/mission-page-<lang>.png.
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createAccount, sessionCookie, startTestApp } from '../harness.ts';
import type { TestContext } from '../harness.ts';
import { CHROMIUM, freePort, hasChromium, launchChromium } from './browser.ts';
import { builtWeb } from './web-build.ts';
import { describeUnless, needsChromium } from '../requirements.ts';

const runBrowser = hasChromium || process.env.REQUIRE_BROWSER === '1';
if (!runBrowser) console.warn(`mission page e2e tests SKIPPED: no Chromium at ${CHROMIUM}`);

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };
const SHOTS = 'docs/screenshots';
const LANGUAGES = ['en', 'ko', 'ja', 'zh-TW', 'th'] as const;
/** The page's title in each language, from the translations the page ships. */
const PAGE_TITLE = Object.fromEntries(
  LANGUAGES.map((l) => [
    l,
    (JSON.parse(readFileSync(`web/src/app/locales/${l}.json`, 'utf8')) as { page: { title: string } }).page
      .title,
  ]),
) as Record<(typeof LANGUAGES)[number], string>;
const AXE_SCRIPT = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

let ctx: TestContext;
let browser: Browser;
let distDir: string;
let appUrl: string;
let accountId: string;
const partner = { id: '', apiKey: '' };

async function ok<T = { id: string }>(response: Promise<{ statusCode: number; body: string }>, status = 201) {
  const r = await response;
  if (r.statusCode !== status) throw new Error(`setup: ${r.statusCode} ${r.body}`);
  return JSON.parse(r.body) as T;
}

async function partnerApi(url: string, body: unknown): Promise<void> {
  const response = await fetch(`${appUrl}${url}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-partner-id': partner.id, 'x-api-key': partner.apiKey },
    body: JSON.stringify(body),
  });
  if (response.status !== 200) throw new Error(`${url}: ${response.status} ${await response.text()}`);
}

/** A browser signed in as the linked user (the session cookie the login would have set). */
async function signedIn(options: { viewport?: { width: number; height: number }; locale?: string } = {}) {
  const context = await browser.newContext({
    viewport: options.viewport ?? PHONE,
    // axe is injected as an inline script, which the page's CSP rightly forbids: bypass it in tests.
    bypassCSP: true,
    ...(options.locale !== undefined && { locale: options.locale }),
  });
  const [name = '', value = ''] = (await sessionCookie(ctx, accountId)).split('=');
  await context.addCookies([{ name, value, url: appUrl }]);
  return context;
}

async function openApp(context: BrowserContext, query = ''): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${appUrl}/app${query}`);
  await page.locator('[data-mission-key="play-3"]').waitFor();
  return page;
}

const card = (page: Page, key: string) => page.locator(`[data-mission-key="${key}"]`);

async function accessibilityViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE_SCRIPT });
  return page.evaluate<string[]>(`axe
    .run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })
    .then((result) => result.violations.map((v) => v.impact + ' ' + v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`);
}

describeUnless(needsChromium())('the mission page in a real browser', () => {
  beforeAll(async () => {
    distDir = await builtWeb();
    const appPort = await freePort();
    appUrl = `http://127.0.0.1:${appPort}`;
    ctx = await startTestApp({
      env: { PUBLIC_BASE_URL: appUrl, WEB_DIST_DIR: distDir },
      now: new Date().toISOString(),
    });
    await ctx.app.listen({ port: appPort, host: '127.0.0.1' });

    // An operator's catalog: titles per language, a gauge, a one-time and a no-target mission,
    // a daily check-in with a one-day streak reward.
    partner.id = (
      await ok(
        ctx.admin('POST', '/admin/v1/partners', { name: 'Acme Games', allowedIps: ['127.0.0.1', '::1'] }),
      )
    ).id;
    partner.apiKey = (
      await ok<{ apiKey: string }>(ctx.admin('POST', `/admin/v1/partners/${partner.id}/api-keys`, {}))
    ).apiKey;
    const assetId = (
      await ok(ctx.admin('POST', '/admin/v1/reward-assets', { symbol: 'PNT', name: 'Points', decimals: 2 }))
    ).id;
    const budgetId = (
      await ok(
        ctx.admin('POST', '/admin/v1/budgets', { type: 'FIXED', assetId, name: 'pts', total: '100000' }),
      )
    ).id;
    const promotionId = (
      await ok(
        ctx.admin('POST', '/admin/v1/promotions', {
          partnerId: partner.id,
          type: 'COMPOSITE',
          title: 'Autumn festival',
          titles: { ko: '가을 축제', ja: '秋まつり', 'zh-TW': '秋季慶典', th: 'เทศกาลฤดูใบไม้ร่วง' },
          timezone: 'Asia/Seoul',
          startAt: '2026-01-01T00:00:00Z',
          status: 'ACTIVE',
        }),
      )
    ).id;
    const groupId = (
      await ok(
        ctx.admin('POST', `/admin/v1/promotions/${promotionId}/mission-groups`, { title: 'Every day' }),
      )
    ).id;
    const missions = [
      {
        missionKey: 'play-3',
        title: 'Play 3 games',
        titles: { ko: '게임 3판 하기', ja: 'ゲームを3回プレイ', 'zh-TW': '玩 3 場遊戲', th: 'เล่นเกม 3 รอบ' },
        recurrence: 'DAILY',
        target: 3,
      },
      {
        missionKey: 'first-login',
        title: 'First login',
        titles: { ko: '첫 로그인' },
        recurrence: 'ONE_TIME',
      },
      { missionKey: 'share', title: 'Share a clip', recurrence: 'DAILY' },
    ];
    for (const mission of missions) {
      const id = (await ok(ctx.admin('POST', `/admin/v1/mission-groups/${groupId}/missions`, mission))).id;
      await ok(
        ctx.admin('PUT', `/admin/v1/missions/${id}/reward`, { type: 'FIXED', budgetId, amount: '1234.5' }),
        200,
      );
    }
    const checkPromotion = (
      await ok(
        ctx.admin('POST', '/admin/v1/promotions', {
          partnerId: partner.id,
          type: 'DAILY_CHECK',
          title: 'Daily check-in',
          titles: { ja: '毎日チェックイン' },
          timezone: 'Asia/Seoul',
          startAt: '2026-01-01T00:00:00Z',
          status: 'ACTIVE',
        }),
      )
    ).id;
    const checkGroup = (
      await ok(
        ctx.admin('POST', `/admin/v1/promotions/${checkPromotion}/mission-groups`, { title: 'Check-in' }),
      )
    ).id;
    await ok(
      ctx.admin('POST', `/admin/v1/mission-groups/${checkGroup}/missions`, {
        missionKey: 'check-in',
        title: 'Check in',
        recurrence: 'DAILY',
      }),
    );
    await ok(
      ctx.admin('PUT', `/admin/v1/promotions/${checkPromotion}/streak-rewards`, {
        items: [{ days: 1, budgetId, amount: '5' }],
      }),
      200,
    );

    accountId = await createAccount(ctx, {
      displayName: 'Mina',
      link: { partnerId: partner.id, partnerUid: 'player-7' },
    });
    await partnerApi('/v1/achieve', {
      partnerUid: 'player-7',
      missionKey: 'play-3',
      completed: false,
      metadata: { target: 3, current: 1 },
    });
    // A one-time mission a partner reports as done with a zero count (a login has nothing to count).
    await partnerApi('/v1/achieve', {
      partnerUid: 'player-7',
      missionKey: 'first-login',
      completed: true,
      metadata: { current: 0 },
    });
    await partnerApi('/v1/achieve', { partnerUid: 'player-7', missionKey: 'share', completed: true });
    await partnerApi('/v1/achieve', { partnerUid: 'player-7', missionKey: 'check-in', completed: true });

    browser = await launchChromium();
    mkdirSync(SHOTS, { recursive: true });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await ctx?.close();
  });

  it('(a) a completed mission without a target says done, with no empty-or-full bar saying "not started"', async () => {
    const context = await signedIn();
    const page = await openApp(context);
    const share = card(page, 'share');
    await expect.poll(() => share.textContent()).toContain('Done');
    expect((await share.textContent())?.toLowerCase()).not.toContain('not started');
    expect(await share.getByRole('progressbar').count()).toBe(0);
    await context.close();
  });

  it('(b) a completed one-time mission says done, not "0"', async () => {
    const context = await signedIn();
    const page = await openApp(context);
    const once = card(page, 'first-login');
    await expect.poll(() => once.textContent()).toContain('Done');
    expect(await once.locator('.gauge-text, [data-testid="gauge-text"]').allTextContents()).not.toContain(
      '0',
    );
    expect(await once.getByRole('progressbar').count()).toBe(0);
    await context.close();
  });

  it('(c) a streak reward is listed as a streak reward, not a mission reward', async () => {
    const context = await signedIn();
    const page = await openApp(context);
    const claims = page.locator('.claims li');
    await expect.poll(() => claims.count()).toBe(3);
    const texts = await claims.allTextContents();
    // "5 PNT" on its own (1,234.5 PNT also ends with it).
    const five = /(^|[^\d.,])5 PNT/;
    expect(texts.filter((t) => five.test(t))).toHaveLength(1);
    expect(texts.find((t) => five.test(t))).toContain('streak reward');
    expect(texts.filter((t) => t.includes('mission reward'))).toHaveLength(2);
    await context.close();
  });

  it('has no axe violations and no horizontal scroll at phone and desktop sizes', async () => {
    for (const viewport of [PHONE, DESKTOP]) {
      const context = await signedIn({ viewport });
      const page = await openApp(context);
      await page.locator('.claims li').first().waitFor();
      expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
      expect(await accessibilityViolations(page)).toEqual([]);
      await context.close();
    }
  });

  it('switching to Japanese shows the page and the Japanese titles the operator set, remembered, at phone and desktop sizes', async () => {
    expect(PAGE_TITLE.ja).toBe('マイミッション');
    for (const viewport of [PHONE, DESKTOP]) {
      const context = await signedIn({ viewport, locale: 'en-US' });
      const page = await openApp(context);
      await expect.poll(() => page.locator('h1').textContent()).toBe('My missions');
      expect(await card(page, 'play-3').textContent()).toContain('Play 3 games');
      const missionsAsked = page.waitForRequest((r) => r.url().includes('/v1/me/missions'));
      const ticketsAsked = page.waitForRequest((r) => r.url().includes('/v1/me/tickets'));
      await page.getByLabel('Language').selectOption({ label: '日本語' });
      expect(new URL((await missionsAsked).url()).searchParams.get('lang')).toBe('ja');
      expect(new URL((await ticketsAsked).url()).searchParams.get('lang')).toBe('ja');
      await expect.poll(() => page.locator('h1').textContent()).toBe('マイミッション');
      await expect.poll(() => card(page, 'play-3').textContent()).toContain('ゲームを3回プレイ');
      expect(await page.locator('.promotion h3').allTextContents()).toEqual(
        expect.arrayContaining([expect.stringContaining('秋まつり')]),
      );
      expect(await page.evaluate('document.documentElement.lang')).toBe('ja');
      expect(await page.evaluate('document.title')).toBe('マイミッション');
      // The other languages are offered in their own names.
      expect(await page.getByLabel('言語').locator('option').allTextContents()).toEqual([
        'English',
        '한국어',
        '日本語',
        '繁體中文',
        'ไทย',
      ]);
      await page.locator('.claims li').first().waitFor();
      expect(await page.locator('.claims').textContent()).toContain('連続チェックイン報酬');
      expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
      expect(await accessibilityViolations(page)).toEqual([]);
      // Remembered: a reload (the browser still says English) stays in Japanese.
      await page.reload();
      await page.locator('[data-mission-key="play-3"]').waitFor();
      await expect.poll(() => page.locator('h1').textContent()).toBe('マイミッション');
      await expect.poll(() => card(page, 'play-3').textContent()).toContain('ゲームを3回プレイ');
      await context.close();
    }
  });

  it('writes screenshots of the mission page in all five languages', async () => {
    for (const lang of LANGUAGES) {
      const context = await signedIn({ viewport: PHONE, locale: 'en-US' });
      const page = await openApp(context, `?lang=${lang}`);
      await expect.poll(() => page.locator('h1').textContent()).toBe(PAGE_TITLE[lang]);
      expect(await page.evaluate('document.documentElement.lang')).toBe(lang);
      await page.locator('.claims li').first().waitFor();
      expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
      await page.screenshot({ path: `${SHOTS}/mission-page-${lang}.png`, fullPage: true });
      await context.close();
    }
  });

  it('(d) after signing out, signing in asks the login provider for the login again', async () => {
    const context = await browser.newContext({ viewport: PHONE });
    const page = await context.newPage();
    await page.goto(`${appUrl}/v1/login?returnTo=/app`);
    await page.getByLabel('User name').fill('first-user');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${appUrl}/app`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('link', { name: 'Sign in' }).click();
    // The provider shows its form again (it remembers first-user, but the page asked it not to).
    await page.getByLabel('User name').waitFor({ timeout: 10_000 });
    await page.getByLabel('User name').fill('second-user');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${appUrl}/app`);
    await expect.poll(() => page.locator('.who').textContent()).toContain('second-user');
    await context.close();
  });
});
