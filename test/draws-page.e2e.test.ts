// The user's draw page in a browser (issue #31 item 9, #28 item 1): each language shows the draw's
// own title (the default title where the operator gave none), the ticket close, and what anyone
// needs to recompute the winners (seed, ticket list, the formula), without sideways scroll on a phone.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { partnerCall, setupMission, startTestApp } from './harness.ts';
import type { TestContext } from './harness.ts';
import { linkUsers } from './link-users.ts';
import { freePort, launchChromium } from './e2e/browser.ts';
import { PHONE } from './e2e/page-checks.ts';
import { builtWeb } from './e2e/web-build.ts';
import { describeUnless, needsChromium } from './requirements.ts';

let ctx: TestContext;
let browser: Browser;
let appUrl: string;
let drawId: string;

const TITLES = {
  en: 'Winter draw',
  ko: '겨울 맞이 럭키드로우',
  'zh-TW': '冬季幸運抽獎',
  th: 'จับรางวัลฤดูหนาว',
} as const;

const catalog = (lang: string) =>
  JSON.parse(readFileSync(`web/src/app/locales/${lang}.json`, 'utf8')) as {
    draw: Record<string, string>;
  };

describeUnless(needsChromium())("the user's draw page", () => {
  beforeAll(async () => {
    const port = await freePort();
    appUrl = `http://127.0.0.1:${port}`;
    [ctx, browser] = await Promise.all([
      builtWeb().then((distDir) =>
        startTestApp({
          env: { PUBLIC_BASE_URL: appUrl, WEB_DIST_DIR: distDir },
          now: new Date().toISOString(),
        }),
      ),
      launchChromium(),
    ]);
    await ctx.app.listen({ port, host: '127.0.0.1' });
    const setup = await setupMission(ctx, { missionKey: 'lucky', recurrence: 'DAILY' });
    const assetId = (
      await ctx.admin('POST', '/admin/v1/reward-assets', { symbol: 'GEM', name: 'Gems', decimals: 0 })
    ).json().id;
    const budgetId = (
      await ctx.admin('POST', '/admin/v1/budgets', {
        type: 'LUCKY_DRAW',
        assetId,
        name: 'Gems',
        total: '100',
      })
    ).json().id;
    await ctx.admin('PUT', `/admin/v1/missions/${setup.missionId}/reward`, { type: 'LUCKY_DRAW', budgetId });
    const players = ['p-1', 'p-2', 'p-3'];
    await linkUsers(ctx, setup.partnerId, players);
    for (const partnerUid of players)
      await partnerCall(ctx, setup, {
        method: 'POST',
        url: '/v1/achieve',
        body: { partnerUid, missionKey: 'lucky', completed: true },
      });
    const { en, ...titles } = TITLES;
    const created = await ctx.admin('POST', '/admin/v1/draws', {
      budgetId,
      title: en,
      titles,
      prizeAmount: '20',
      winnersCount: 1,
      scheduledAt: ctx.clock.now().toISOString(),
    });
    expect(created.statusCode, created.body).toBe(201);
    drawId = created.json().id;
    expect((await ctx.admin('POST', `/admin/v1/draws/${drawId}/run`)).statusCode).toBe(200);
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await ctx?.close();
  });

  it('shows each language its own title (Japanese, without one, the default), the close and the tickets', async () => {
    for (const lang of ['en', 'ko', 'ja', 'zh-TW', 'th'] as const) {
      const context = await browser.newContext({ viewport: PHONE, locale: lang });
      await context.addInitScript(`localStorage.setItem('missions.language', ${JSON.stringify(lang)})`);
      const page = await context.newPage();
      await page.goto(`${appUrl}/app/draws/${drawId}`);
      const heading = page.locator('article h2');
      await heading.waitFor();
      const expected = lang === 'ja' ? TITLES.en : TITLES[lang];
      expect(await heading.textContent(), lang).toContain(expected);
      const words = catalog(lang).draw;
      const facts = (await page.locator('.facts').textContent()) ?? '';
      expect(facts, lang).toContain(words.closes);
      // The formula and the ticket list: what anyone needs to recompute the winner.
      expect(await page.locator('article').textContent(), lang).toContain(words.explain);
      // The ticket count in the page's words, its placeholder filled (an ICU message: "{n}").
      const summary = (await page.locator('.draw-tickets summary').textContent()) ?? '';
      expect(summary, lang).toContain('3');
      expect(summary, lang).not.toMatch(/[{}]/);
      await page.locator('.draw-tickets summary').click();
      expect(await page.locator('.draw-tickets li').count(), lang).toBe(3);
      expect(await page.evaluate('document.documentElement.scrollWidth'), lang).toBeLessThanOrEqual(
        PHONE.width,
      );
      await context.close();
    }
  });
});
