// The operator console with the data real operators have (issue #31): an 18-decimal asset with
// amounts like 1234567.891 and 0.000001 against a 30-digit total, a 0-decimal asset, hundreds of
// claims and audit events, a webhook endpoint, long titles. Every page in en, ko and ja at 390x844
// and 1280x800: nothing wider than the window, no text under 11 px, axe clean, no English catalog
// word in Korean or Japanese, <html lang> the page's language; screenshots
// docs/screenshots/console-real-<page>-<lang>-<size>.png.
// Then each console fix of the items 11-16 on its own.
import { mkdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runPayoutBatch } from '../../src/payout/worker.ts';
import { SHARED_WORDS } from '../../web/src/shared/shared-words.ts';
import { createAccount } from '../harness.ts';
import type { TestContext } from '../harness.ts';
import { describeUnless, needsChromium } from '../requirements.ts';
import { created, openConsole, settle, startBrowserApp } from './browser-app.ts';
import type { BrowserApp } from './browser-app.ts';
import { seedRealAssets } from './real-assets.ts';
import { consolePages } from './console-checks.ts';
import { catalogStrings, DESKTOP, englishOnlyWords, pageProblems, PHONE, SHOTS } from './page-checks.ts';

const LANGUAGES = ['en', 'ko', 'ja'] as const;
const catalog = (lang: string) =>
  JSON.parse(readFileSync(`web/src/console/locales/${lang}.json`, 'utf8')) as unknown;

let ctx: TestContext;
let app: BrowserApp;
const ids = {
  partnerId: '',
  promotionId: '',
  dailyPromotionId: '',
  budgetId: '',
  freshBudgetId: '',
  drawId: '',
};

/** A screenshot's name for a page: its path with the seeded ids named. */
const shotName = (url: string) => {
  let name = url.replace(/^\/console\/?/, '').replace(/\?.*$/, '');
  for (const [key, id] of Object.entries(ids)) if (id) name = name.replace(id, key.replace(/Id$/, ''));
  return name.replace(/[^a-z0-9]+/gi, '-').replace(/-+$/, '') || 'dashboard';
};

describeUnless(needsChromium())('the console with real data', () => {
  beforeAll(async () => {
    app = await startBrowserApp({ WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true' });
    ctx = app.ctx;

    ids.partnerId = (
      await created(
        ctx.admin('POST', '/admin/v1/partners', {
          name: 'Acme Games Worldwide Entertainment',
          allowedIps: ['127.0.0.1', '::1'],
        }),
      )
    ).id;
    const apiKey = (
      await created<{ apiKey: string }>(ctx.admin('POST', `/admin/v1/partners/${ids.partnerId}/api-keys`, {}))
    ).apiKey;
    const { devt: devl, tokenBudget, gemBudget } = await seedRealAssets(ctx, { gemTotal: '9999999' });
    ids.budgetId = tokenBudget;
    ids.freshBudgetId = gemBudget;
    const lucky = (
      await created(
        ctx.admin('POST', '/admin/v1/budgets', {
          type: 'LUCKY_DRAW',
          assetId: devl,
          name: 'Lucky pool',
          total: '1000000.5',
        }),
      )
    ).id;
    ids.promotionId = (
      await created(
        ctx.admin('POST', '/admin/v1/promotions', {
          partnerId: ids.partnerId,
          type: 'COMPOSITE',
          title: 'The great winter festival of the northern kingdoms, with daily rewards for everyone',
          titles: {
            ko: '북쪽 왕국들의 위대한 겨울 축제: 모두를 위한 매일 보상',
            ja: '北の王国の冬の大祭典：毎日の報酬',
          },
          timezone: 'Asia/Seoul',
          startAt: '2026-01-01T00:00:00Z',
          status: 'ACTIVE',
        }),
      )
    ).id;
    ids.dailyPromotionId = (
      await created(
        ctx.admin('POST', '/admin/v1/promotions', {
          partnerId: ids.partnerId,
          type: 'DAILY_CHECK',
          title: 'Daily check-in',
          timezone: 'Asia/Seoul',
          startAt: '2026-01-01T00:00:00Z',
          status: 'ACTIVE',
        }),
      )
    ).id;
    const group = (
      await created(
        ctx.admin('POST', `/admin/v1/promotions/${ids.promotionId}/mission-groups`, { title: 'Every day' }),
      )
    ).id;
    const rewards: Array<[string, Record<string, unknown>]> = [
      ['big', { type: 'FIXED', budgetId: ids.budgetId, amount: '1234567.891' }],
      ['dust', { type: 'FIXED', budgetId: ids.budgetId, amount: '0.000001' }],
      ['long', { type: 'FIXED', budgetId: ids.budgetId, amount: '1.123456789012345678' }],
      ['gems', { type: 'FIXED', budgetId: ids.freshBudgetId, amount: '1234567' }],
      ['lucky', { type: 'LUCKY_DRAW', budgetId: lucky }],
    ];
    for (const [key, reward] of rewards) {
      const id = (
        await created(
          ctx.admin('POST', `/admin/v1/mission-groups/${group}/missions`, {
            missionKey: key,
            title: `Mission ${key}: play the ranked season and finish in the top ten`,
            recurrence: 'ONE_TIME',
          }),
        )
      ).id;
      await created(ctx.admin('PUT', `/admin/v1/missions/${id}/reward`, reward), 200);
    }
    // Hundreds of audit events: missions edited one by one.
    for (let i = 0; i < 60; i++)
      await created(
        ctx.admin('POST', `/admin/v1/mission-groups/${group}/missions`, {
          missionKey: `extra-${i}`,
          title: `Extra mission ${i}`,
          recurrence: 'DAILY',
        }),
      );
    // Hundreds of claims of linked players, paid through the ledger.
    const achieve = (partnerUid: string, missionKey: string) =>
      ctx.app.inject({
        method: 'POST',
        url: '/v1/achieve',
        remoteAddress: '127.0.0.1',
        headers: { 'x-partner-id': ids.partnerId, 'x-api-key': apiKey },
        payload: { partnerUid, missionKey, completed: true },
      });
    const link = (partnerUid: string) =>
      createAccount(ctx, { link: { partnerId: ids.partnerId, partnerUid } });
    for (let i = 0; i < 150; i++) {
      const uid = `player-with-a-long-partner-user-id-${i}`;
      await link(uid);
      await achieve(uid, i % 2 ? 'big' : 'dust');
    }
    for (let i = 0; i < 5; i++) {
      await link(`lucky-${i}`);
      await achieve(`lucky-${i}`, 'lucky');
    }
    while ((await runPayoutBatch(ctx.database.db, ctx.clock)) > 0);
    ids.drawId = (
      await created(
        ctx.admin('POST', '/admin/v1/draws', {
          budgetId: lucky,
          title: 'Winter draw',
          prizeAmount: '20',
          winnersCount: 1,
          // A month ahead of the app's clock, the real time here: a fixed date became the past (400
          // DRAW_CLOSES_IN_PAST) on 2026-11-30 and failed every run after.
          scheduledAt: new Date(ctx.clock.now().getTime() + 30 * 24 * 3600 * 1000).toISOString(),
        }),
      )
    ).id;
    await created(
      ctx.admin('POST', `/admin/v1/partners/${ids.partnerId}/webhook-endpoints`, {
        url: 'http://127.0.0.1:9/hooks/a-very-long-path/for-the-partners-webhook-receiver',
        events: ['claim.succeeded'],
      }),
    );
    mkdirSync(SHOTS, { recursive: true });
  }, 300_000);

  afterAll(async () => {
    await app?.close();
  });

  it('every page in en, ko and ja at phone and desktop sizes: fits, no text under 11 px, axe clean, no English catalog word', async () => {
    const english = [...catalogStrings(catalog('en')), ...catalogStrings(SHARED_WORDS.en)];
    // Words that are the data's, or the same in every language (names, symbols, event types).
    const data = [
      'Acme Games Worldwide Entertainment',
      'The great winter festival of the northern kingdoms, with daily rewards for everyone',
      'Winter festival token pool',
      'Lucky pool',
      'Gems',
      'Dev token',
      'Daily check-in',
      'Every day',
      'Winter draw',
      'Mission play the ranked season and finish in the top ten extra',
      'player with a long partner user id lucky hooks very long path for the partners webhook receiver',
      'OWNER test owner token',
      // The language select names each language in its own words.
      'English',
      // Webhook event types stay as the API names them (user.linked, claim.reserved, ...).
      'user linked unlinked mission completed claim reserved requested succeeded rejected failed draw run',
      // The service's own message after the translated words (a user not found).
      'found linked',
      // A draw's public page, shown as its address.
      'app draws',
      // The chain payouts page is the chain engineer's (issue #31 item 17).
      'hash',
    ];
    const problems: string[] = [];
    for (const lang of LANGUAGES) {
      const words = englishOnlyWords(english, [
        ...catalogStrings(catalog(lang)),
        ...catalogStrings(SHARED_WORDS[lang]),
      ]);
      for (const [size, viewport] of [
        ['phone', PHONE],
        ['desktop', DESKTOP],
      ] as const) {
        const { context, page } = await openConsole(app, viewport, lang);
        for (const url of [...consolePages(ids), `/console/budgets/${ids.freshBudgetId}`]) {
          await settle(app, page, url);
          const where = `${lang} ${size} ${url}`;
          problems.push(...(await pageProblems(page, where, lang === 'en' ? undefined : words, data)));
          const htmlLang = await page.locator('html').getAttribute('lang');
          if (htmlLang !== lang) problems.push(`${where} html lang="${htmlLang}"`);
          await page.screenshot({ path: `${SHOTS}/console-real-${shotName(url)}-${lang}-${size}.png` });
        }
        await context.close();
      }
    }
    expect(problems).toEqual([]);
  }, 900_000);

  it('(11) 18-decimal amounts fit their cards and cells, with every digit a click away', async () => {
    const { context, page } = await openConsole(app, DESKTOP, 'en');
    await settle(app, page, `/console/budgets/${ids.budgetId}`);
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(DESKTOP.width);
    const total = page.getByTestId('budget-total');
    expect(await total.textContent()).toBe('123,456,789,012.123456… DEVT');
    await total.getByRole('button').click();
    expect(await total.textContent()).toBe('123,456,789,012.123456789012345678 DEVT');
    await context.close();
  });

  it('(12) Korean and Japanese name the destructive revoke 폐기 / 失効, never 취소 / 取り消し (cancel)', async () => {
    for (const [lang, revoke, cancel] of [
      ['ko', '폐기', '취소'],
      ['ja', '失効させる', '取り消'],
    ] as const) {
      const { context, page } = await openConsole(app, DESKTOP, lang);
      for (const url of [`/console/partners/${ids.partnerId}`, '/console/credentials']) {
        await settle(app, page, url);
        // The keys' list loads after the page's heading (a slow CI machine read the page while it
        // still said it was loading): wait for the button, then read the whole text.
        await page.locator('main').getByText(revoke).first().waitFor();
        const main = (await page.locator('main').textContent()) ?? '';
        expect(main, `${lang} ${url}`).toContain(revoke);
        expect(main, `${lang} ${url}`).not.toContain(cancel);
      }
      await context.close();
    }
  });

  it('(13) enums in words, audit entities named and linked, webhook partners by name, the draw page a page', async () => {
    const { context, page } = await openConsole(app, DESKTOP, 'ko');
    await settle(app, page, '/console/promotions');
    expect(await page.locator('main').textContent()).not.toContain('COMPOSITE');
    await settle(app, page, '/console/audit?entityType=partner');
    const link = page.getByRole('link', { name: 'Acme Games Worldwide Entertainment' }).first();
    expect(await link.getAttribute('href')).toBe(`/console/partners/${ids.partnerId}`);
    await settle(app, page, '/console/webhooks');
    expect(
      await page.getByRole('link', { name: 'Acme Games Worldwide Entertainment' }).count(),
    ).toBeGreaterThan(0);
    await settle(app, page, '/console/draws');
    expect(await page.locator(`a[href="/app/draws/${ids.drawId}"]`).count()).toBe(1);
    await context.close();
  });

  it('(14) setting a reward confirms it in the operator language', async () => {
    const { context, page } = await openConsole(app, DESKTOP, 'ko');
    await settle(app, page, `/console/promotions/${ids.promotionId}`);
    await page.getByRole('button', { name: /수정 Mission gems/ }).click();
    const form = page.getByRole('form', { name: /Mission gems.*의 보상/ });
    await form.getByRole('button', { name: '보상 설정' }).click();
    await form.getByRole('status').waitFor();
    expect(await form.getByRole('status').textContent()).toContain('보상을 저장했습니다');
    await context.close();
  });

  it('(15) on a phone the header and navigation leave the first screen to the page', async () => {
    const { context, page } = await openConsole(app, PHONE, 'ko');
    await settle(app, page, '/console/claims');
    const nav = await page.locator('.console > nav').boundingBox();
    expect((nav?.y ?? 0) + (nav?.height ?? 0)).toBeLessThan(260);
    // Some of the claims are on the first screen.
    const first = await page.locator('main tbody tr').first().boundingBox();
    expect(first?.y ?? 9999).toBeLessThan(844);
    // The audit log (hundreds of events) is paged, not one 7,788 px page: 50 rows and a link on.
    await settle(app, page, '/console/audit');
    expect(await page.locator('main tbody tr').count()).toBe(50);
    await page.getByRole('link', { name: '이전 변경' }).click();
    await page.waitForURL(/page=1/);
    await page.waitForLoadState('networkidle');
    expect(await page.locator('main tbody tr').count()).toBeGreaterThan(0);
    await context.close();
  });

  it('(16) missions before settings; filter buttons side by side; one day of budget history says so', async () => {
    const { context, page } = await openConsole(app, DESKTOP, 'en');
    await settle(app, page, `/console/promotions/${ids.promotionId}`);
    const settings = page.getByTestId('promotion-settings');
    expect(await settings.getAttribute('open')).toBeNull();
    const groupsTop = (await page.getByRole('heading', { level: 2 }).first().boundingBox())?.y ?? 0;
    expect(groupsTop).toBeLessThan((await settings.boundingBox())?.y ?? 0);
    await settle(app, page, '/console/claims');
    const show = await page.getByRole('button', { name: 'Show claims' }).boundingBox();
    const clear = await page
      .getByRole('link', { name: 'Clear filters' })
      .or(page.getByRole('button', { name: 'Clear filters' }))
      .first()
      .boundingBox();
    expect(Math.abs((show?.y ?? 0) - (clear?.y ?? 100))).toBeLessThan(5);
    await settle(app, page, `/console/budgets/${ids.budgetId}`);
    await page.getByTestId('chart-not-enough').waitFor();
    await context.close();
  });

  it('(18) the webhook hint says what this deployment accepts; the promotion form names both time zones', async () => {
    const { context, page } = await openConsole(app, DESKTOP, 'en');
    const hintOf = async (label: string) => {
      const id = await page.getByLabel(label, { exact: true }).getAttribute('aria-describedby');
      return (await page.locator(`[id="${id}"]`).textContent()) ?? '';
    };
    // This deployment allows private addresses (WEBHOOK_ALLOW_PRIVATE_ADDRESSES=true): the hint says so.
    await settle(app, page, '/console/webhooks');
    expect(await hintOf('URL')).toContain('including localhost');
    await settle(app, page, '/console/promotions');
    const browserZone = await page.evaluate('Intl.DateTimeFormat().resolvedOptions().timeZone');
    expect(await hintOf('Starts')).toBe(
      `Entered in your time zone (${String(browserZone)}). The promotion's days follow Asia/Seoul.`,
    );
    await page.getByLabel('Starts', { exact: true }).fill('2026-12-01T09:00');
    const seoul = await page.evaluate(
      `new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'Asia/Seoul' }).format(new Date('2026-12-01T09:00'))`,
    );
    expect(await hintOf('Starts')).toContain(
      `The promotion's days follow Asia/Seoul, where it starts ${String(seoul)}.`,
    );
    // Another zone typed: the hint follows it.
    await page.getByLabel('Time zone', { exact: true }).fill('America/New_York');
    expect(await hintOf('Starts')).toContain('follow America/New_York');
    await context.close();
  });
});
