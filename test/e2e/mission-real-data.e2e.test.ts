// The mission page with the data real users have (issue #31): an 18-decimal token paid on the dev
// chain to a bound 42-character address, a 0-decimal asset, amounts like 1234567.891 and 0.000001,
// a won lucky draw, long titles in every language. In en, ko, ja, zh-TW and th at 390x844 and
// 1280x800: nothing wider than the window, no text under 11 px, axe clean, no English catalog word
// in another language; screenshots docs/screenshots/mission-real-<lang>-<size>.png. Then each fix
// of the items 1-10 on its own.
import { mkdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createClaimChainPayout } from '../../src/chain/claim-payout.ts';
import { runPayoutBatch } from '../../src/payout/worker.ts';
import { SHARED_WORDS } from '../../web/src/shared/shared-words.ts';
import { createAccount, sessionCookie } from '../harness.ts';
import type { TestContext } from '../harness.ts';
import { chainBudget, TEST_KEK } from '../chain/chain-fixture.ts';
import { describeUnless, needsChromium } from '../requirements.ts';
import { catalogStrings, DESKTOP, englishOnlyWords, pageProblems, PHONE, SHOTS } from './page-checks.ts';
import { created, startBrowserAppWithChain } from './browser-app.ts';
import type { BrowserApp, TestChain } from './browser-app.ts';

const LANGUAGES = ['en', 'ko', 'ja', 'zh-TW', 'th'] as const;
const catalog = (lang: string) =>
  JSON.parse(readFileSync(`web/src/app/locales/${lang}.json`, 'utf8')) as unknown;
const ADDRESS = '0x8ba1f109551bD432803012645Ac136ddd64DBA72';

let ctx: TestContext;
let chain: TestChain;
let browser: Browser;
let app: BrowserApp & { chain: TestChain };
let appUrl: string;
let accountId: string;
let drawId: string;
let minedHash: string;
const partner = { id: '', apiKey: '' };

async function achieve(partnerUid: string, missionKey: string, body: Record<string, unknown> = {}) {
  const r = await ctx.app.inject({
    method: 'POST',
    url: '/v1/achieve',
    remoteAddress: '127.0.0.1',
    headers: { 'x-partner-id': partner.id, 'x-api-key': partner.apiKey },
    payload: { partnerUid, missionKey, completed: true, ...body },
  });
  if (r.statusCode !== 200) throw new Error(`achieve ${missionKey}: ${r.body}`);
}

/** Titles in every language, long ones as operators write them. */
const titles = (en: string, ko: string, ja: string, zh: string, th: string) => ({
  title: en,
  titles: { ko, ja, 'zh-TW': zh, th },
});

async function signedIn(viewport = PHONE, lang = 'en'): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport, bypassCSP: true, locale: lang });
  const [name = '', value = ''] = (await sessionCookie(ctx, accountId)).split('=');
  await context.addCookies([{ name, value, url: appUrl }]);
  await context.addInitScript(`localStorage.setItem('missions.language', ${JSON.stringify(lang)})`);
  return context;
}

async function openApp(context: BrowserContext, url = '/app'): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${appUrl}${url}`);
  if (url === '/app') {
    await page.locator('[data-mission-key="lucky"]').waitFor();
    await page.locator('.claims li').first().waitFor();
    await page.getByTestId('wallet-address').waitFor();
    await page.locator('[data-testid="loading"]').first().waitFor({ state: 'detached' });
  }
  return page;
}

describeUnless(needsChromium())('the mission page with real data', () => {
  beforeAll(async () => {
    app = await startBrowserAppWithChain();
    ({ ctx, chain, browser, appUrl } = app);

    partner.id = (
      await created(
        ctx.admin('POST', '/admin/v1/partners', { name: 'Acme Games', allowedIps: ['127.0.0.1', '::1'] }),
      )
    ).id;
    partner.apiKey = (
      await created<{ apiKey: string }>(ctx.admin('POST', `/admin/v1/partners/${partner.id}/api-keys`, {}))
    ).apiKey;
    // An 18-decimal token on the dev chain, with an explorer; an 18-decimal and a 0-decimal ledger asset.
    const network = await created(
      ctx.admin('POST', '/admin/v1/chain-networks', {
        name: 'Dev chain',
        chainId: chain.chainId,
        rpcUrl: chain.rpcUrl,
        explorerTxUrl: 'https://explorer.test/tx/{hash}',
      }),
    );
    const onChain = await chainBudget(ctx, chain, { decimals: 18, networkId: network.id });
    const devl = (
      await created(
        ctx.admin('POST', '/admin/v1/reward-assets', {
          symbol: 'DEVL',
          name: 'Dev ledger token',
          decimals: 18,
        }),
      )
    ).id;
    const gem = (
      await created(
        ctx.admin('POST', '/admin/v1/reward-assets', { symbol: 'GEM', name: 'Gems', decimals: 0 }),
      )
    ).id;
    const budget = async (assetId: string, type = 'FIXED') =>
      (
        await created(
          ctx.admin('POST', '/admin/v1/budgets', {
            type,
            assetId,
            name: `b-${assetId}-${type}`,
            total: '100000000000',
          }),
        )
      ).id;
    const devlBudget = await budget(devl);
    const gemBudget = await budget(gem);
    const luckyBudget = await budget(devl, 'LUCKY_DRAW');

    const promotionId = (
      await created(
        ctx.admin('POST', '/admin/v1/promotions', {
          partnerId: partner.id,
          type: 'COMPOSITE',
          ...titles(
            'The great winter festival of the northern kingdoms, with daily rewards for everyone',
            '북쪽 왕국들의 위대한 겨울 축제: 모두를 위한 매일 보상과 럭키드로우 이벤트',
            '北の王国の冬の大祭典：毎日の報酬とラッキードローがみんなを待っています',
            '北方王國的冬季大慶典：每天都有獎勵和幸運抽獎等著大家',
            'เทศกาลฤดูหนาวอันยิ่งใหญ่ของอาณาจักรทางเหนือ พร้อมรางวัลประจำวันสำหรับทุกคน',
          ),
          timezone: 'Asia/Seoul',
          startAt: '2026-01-01T00:00:00Z',
          status: 'ACTIVE',
        }),
      )
    ).id;
    const groupId = (
      await created(
        ctx.admin('POST', `/admin/v1/promotions/${promotionId}/mission-groups`, {
          ...titles('Every day', '매일', '毎日', '每天', 'ทุกวัน'),
        }),
      )
    ).id;
    const missions: Array<{
      key: string;
      t: ReturnType<typeof titles>;
      reward: Record<string, unknown>;
      target?: number;
    }> = [
      {
        key: 'chain',
        t: titles(
          'Connect your wallet and play one ranked match',
          '지갑을 연결하고 랭크 게임 한 판 하기',
          'ウォレットを接続してランクマッチを1回プレイ',
          '連結錢包並玩一場排位賽',
          'เชื่อมต่อกระเป๋าเงินและเล่นแมตช์จัดอันดับหนึ่งครั้ง',
        ),
        reward: { type: 'FIXED', budgetId: onChain.budgetId, amount: '22.5' },
      },
      {
        key: 'big',
        t: titles(
          'Reach the top of the leaderboard',
          '리더보드 정상에 오르기',
          'リーダーボードの頂点に立つ',
          '登上排行榜第一名',
          'ขึ้นอันดับหนึ่งของกระดานผู้นำ',
        ),
        reward: { type: 'FIXED', budgetId: devlBudget, amount: '1234567.891' },
      },
      {
        key: 'dust',
        t: titles('Open the app', '앱 열기', 'アプリを開く', '開啟應用程式', 'เปิดแอป'),
        reward: { type: 'FIXED', budgetId: devlBudget, amount: '0.000001' },
      },
      {
        key: 'gems',
        t: titles('Invite a friend', '친구 초대하기', '友達を招待する', '邀請朋友', 'ชวนเพื่อน'),
        reward: { type: 'FIXED', budgetId: gemBudget, amount: '1234567' },
      },
      {
        key: 'lucky',
        t: titles(
          'Share a clip for the lucky draw',
          '럭키드로우 응모를 위해 클립 공유하기',
          'ラッキードローのためにクリップを共有',
          '分享影片參加幸運抽獎',
          'แชร์คลิปเพื่อร่วมจับรางวัล',
        ),
        reward: { type: 'LUCKY_DRAW', budgetId: luckyBudget },
      },
      {
        key: 'todo',
        t: titles(
          'Win five matches in a row without losing a single round',
          '한 라운드도 지지 않고 다섯 경기 연속 승리하기',
          '1ラウンドも落とさずに5試合連続で勝利する',
          '連續贏得五場比賽且不輸任何一回合',
          'ชนะห้าแมตช์ติดต่อกันโดยไม่แพ้แม้แต่รอบเดียว',
        ),
        reward: { type: 'FIXED', budgetId: gemBudget, amount: '5' },
        target: 5,
      },
    ];
    for (const m of missions) {
      const id = (
        await created(
          ctx.admin('POST', `/admin/v1/mission-groups/${groupId}/missions`, {
            missionKey: m.key,
            ...m.t,
            recurrence: m.key === 'todo' ? 'DAILY' : 'ONE_TIME',
            ...(m.target !== undefined && { target: m.target }),
          }),
        )
      ).id;
      await created(ctx.admin('PUT', `/admin/v1/missions/${id}/reward`, m.reward), 200);
    }

    accountId = await createAccount(ctx, {
      displayName: 'Mina',
      link: { partnerId: partner.id, partnerUid: 'player-7' },
    });
    await ctx.database.db
      .insertInto('user_wallets')
      .values({
        account_id: accountId,
        address: ADDRESS.toLowerCase(),
        chain_id: chain.chainId,
        bound_at: ctx.clock.now(),
      })
      .execute();
    for (const key of ['chain', 'big', 'dust', 'gems', 'lucky']) await achieve('player-7', key);
    await achieve('player-7', 'todo', { completed: false, metadata: { target: 5, current: 2 } });
    // Others play too: hundreds of claims.
    for (let i = 0; i < 120; i++) await achieve(`other-${i}`, 'gems');

    // The lucky draw: the user's ticket is the only one, so it wins 20 DEVL.
    const draw = await created(
      ctx.admin('POST', '/admin/v1/draws', {
        budgetId: luckyBudget,
        title: 'Winter draw',
        prizeAmount: '20',
        winnersCount: 1,
        // The ticket set closes at the draw's time: after the tickets, and not after now.
        scheduledAt: new Date(ctx.clock.now().getTime() + 1000).toISOString(),
      }),
    );
    drawId = draw.id;
    ctx.clock.advance(2000);
    await created(ctx.admin('POST', `/admin/v1/draws/${drawId}/run`), 200);

    while ((await runPayoutBatch(ctx.database.db, ctx.clock)) > 0);
    const payout = createClaimChainPayout({ db: ctx.database.db, clock: ctx.clock, kek: TEST_KEK });
    const chainStatus = async () =>
      (
        await ctx.database.db
          .selectFrom('claims')
          .select('status')
          .where('account_id', '=', accountId)
          .where('budget_id', '=', onChain.budgetId)
          .executeTakeFirst()
      )?.status;
    for (let i = 0; i < 20 && (await chainStatus()) !== 'SUCCEEDED'; i++) await payout.run();
    expect(await chainStatus()).toBe('SUCCEEDED');
    minedHash = (
      await ctx.database.db
        .selectFrom('chain_payouts')
        .select('mined_tx_hash')
        .where('account_id', '=', accountId)
        .executeTakeFirstOrThrow()
    ).mined_tx_hash as string;
    mkdirSync(SHOTS, { recursive: true });
  }, 300_000);

  afterAll(async () => {
    await app?.close();
  });

  it('in every language at phone and desktop sizes: fits the window, no text under 11 px, axe clean, no English catalog word', async () => {
    const english = [...catalogStrings(catalog('en')), ...catalogStrings(SHARED_WORDS.en)];
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
        const context = await signedIn(viewport, lang);
        const page = await openApp(context);
        await page
          .getByRole('button', { pressed: false })
          .filter({ hasText: catalogOf(lang).tickets.drawn })
          .click();
        await page.getByTestId('ticket-won').waitFor();
        const where = `${lang} ${size}`;
        problems.push(
          ...(await pageProblems(page, where, lang === 'en' ? undefined : words, [
            'Acme Games',
            'Mina',
            'Winter draw',
            'Dev ledger token',
            'Gems',
          ])),
        );
        await page.screenshot({ path: `${SHOTS}/mission-real-${lang}-${size}.png`, fullPage: true });
        await context.close();
      }
    }
    expect(problems).toEqual([]);
  }, 300_000);

  it('(1) a bound 42-character address does not push the page sideways on a phone', async () => {
    const context = await signedIn(PHONE, 'ko');
    const page = await openApp(context);
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(PHONE.width);
    const address = page.getByTestId('wallet-address');
    const box = await address.boundingBox();
    expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(PHONE.width);
    // Shortened (0x1234…abcd), with the whole address a tap away.
    const whole = (await address.getAttribute('data-value')) ?? '';
    expect(whole).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(await address.locator('code').textContent()).toBe(`${whole.slice(0, 6)}…${whole.slice(-4)}`);
    await context.close();
  });

  it('(8) once a wallet is bound, the hint about opening the page in a wallet browser is gone', async () => {
    const context = await signedIn(PHONE, 'en');
    // As in LINE's in-app browser: no injected wallet, and this deployment offers no other connector.
    await context.route('**/v1/me/wallet/connectors', (route) =>
      route.fulfill({ json: { chainId: 31337, injected: true, miniDapp: null, devWallet: false } }),
    );
    const page = await openApp(context);
    await page.getByTestId('wallet-address').waitFor();
    expect(await page.getByTestId('wallet-connectors').count()).toBe(0);
    expect(await page.getByTestId('wallet-no-connector').count()).toBe(0);
    await context.close();
  });

  it('(2) balances include what was paid on chain (22.5), and (3) amounts read from their decimals in the locale', async () => {
    const context = await signedIn(PHONE, 'en');
    const page = await openApp(context);
    expect(await page.getByTestId('balance-TST').textContent()).toBe('22.5');
    expect(await page.getByTestId('balance-DEVL').textContent()).toBe('1,234,587.891001');
    expect(await page.getByTestId('balance-GEM').textContent()).toBe('1,234,567');
    const claims = (await page.locator('.claims').textContent()) ?? '';
    expect(claims).toContain('1,234,567.891 DEVL');
    expect(claims).toContain('0.000001 DEVL');
    expect(claims).toContain('22.5 TST');
    expect(claims).not.toMatch(/\.\d*0 [A-Z]/); // no trailing zeros
    expect(await page.locator('[data-mission-key="chain"] .reward').textContent()).toContain('22.5 TST');
    await context.close();
    const de = await signedIn(PHONE, 'th');
    const thai = await openApp(de);
    expect(await thai.locator('.claims').textContent()).toContain('1,234,567.891');
    await de.close();
  });

  it('(4) a transaction hash is a link to the explorer, shortened, and copies whole', async () => {
    const context = await signedIn(PHONE, 'en');
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: appUrl });
    const page = await openApp(context);
    const tx = page.getByTestId('claim-tx');
    expect(await tx.getByRole('link').getAttribute('href')).toBe(`https://explorer.test/tx/${minedHash}`);
    expect(await tx.locator('code').textContent()).toBe(`${minedHash.slice(0, 6)}…${minedHash.slice(-4)}`);
    await tx.getByRole('button', { name: 'Copy transaction' }).click();
    await expect.poll(() => page.evaluate('navigator.clipboard.readText()')).toBe(minedHash);
    await context.close();
  });

  it('(5) Korean keeps its words whole; Japanese and Chinese break between characters', async () => {
    const context = await signedIn(PHONE, 'ko');
    const page = await openApp(context);
    expect(await page.evaluate('getComputedStyle(document.body).wordBreak')).toBe('keep-all');
    await context.close();
    const ja = await signedIn(PHONE, 'ja');
    const japanese = await openApp(ja);
    expect(await japanese.evaluate('getComputedStyle(document.body).wordBreak')).toBe('normal');
    await ja.close();
  });

  it('(6) the preview banner is in the page language and speaks to a user, not of API keys', async () => {
    const context = await signedIn(PHONE, 'th');
    const page = await openApp(context);
    const banner = page.locator('[data-environment="preview"]');
    await banner.waitFor();
    expect(await banner.textContent()).toContain(SHARED_WORDS.th.previewBody);
    expect(await banner.textContent()).not.toContain('mrk_test_');
    await context.close();
  });

  it('(7) an outage is one notice in the page language with a retry; panels say they could not load', async () => {
    const context = await signedIn(PHONE, 'ko');
    const page = await context.newPage();
    let down = true;
    await page.route(/\/v1\/me\/(missions|balances|claims|tickets|wallet)/, (route) =>
      down
        ? route.fulfill({
            status: 503,
            contentType: 'application/json',
            body: JSON.stringify({
              code: 3098,
              name: 'SERVICE_UNAVAILABLE',
              message: 'the database is unreachable',
            }),
          })
        : route.continue(),
    );
    await page.goto(`${appUrl}/app`);
    await page.getByTestId('outage').waitFor();
    expect(await page.getByRole('alert').count()).toBe(1);
    expect(await page.getByTestId('outage').textContent()).toContain(SHARED_WORDS.ko.outageTitle);
    expect(await page.getByTestId('could-not-load').count()).toBeGreaterThanOrEqual(4);
    const text = (await page.locator('main').textContent()) ?? '';
    expect(text).not.toContain(catalogOf('ko').wallet.none);
    expect(text).not.toContain(catalogOf('ko').balances.none);
    expect(text).not.toContain('SERVICE_UNAVAILABLE');
    await page.screenshot({ path: `${SHOTS}/mission-real-outage-ko-phone.png`, fullPage: true });
    down = false;
    await page.getByRole('button', { name: SHARED_WORDS.ko.retry }).click();
    await page.locator('.claims li').first().waitFor();
    expect(await page.getByTestId('outage').count()).toBe(0);
    await context.close();

    // A draw that does not exist: the page's words, not the service's English message.
    const thai = await signedIn(PHONE, 'th');
    const missing = await openApp(thai, '/app/draws/drw_doesnotexist');
    await missing.getByRole('alert').waitFor();
    const alert = (await missing.getByRole('alert').textContent()) ?? '';
    expect(alert).not.toMatch(/no lucky draw|not found/i);
    await thai.close();
  });

  it('(9) a won ticket says what it paid, and the draw page shows its prize and winner', async () => {
    const context = await signedIn(PHONE, 'en');
    const page = await openApp(context);
    await page.getByRole('button', { name: 'Drawn' }).click();
    const won = page.getByTestId('ticket-won');
    await won.waitFor();
    expect(await won.textContent()).toContain('You won 20 DEVL');
    await page.getByRole('link', { name: 'See the draw' }).click();
    await page.getByText('Winter draw').waitFor();
    expect(await page.locator('.facts').textContent()).toContain('20 DEVL × 1');
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(PHONE.width);
    await page.screenshot({ path: `${SHOTS}/mission-real-draw-en-phone.png`, fullPage: true });
    await context.close();
  });

  it('(10) while a panel loads it shows a placeholder, never its empty hint', async () => {
    const context = await signedIn(PHONE, 'en');
    const page = await context.newPage();
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(/\/v1\/me\/balances/, async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(`${appUrl}/app`);
    const balances = page.locator('section[aria-labelledby="balances-heading"]');
    await balances.getByTestId('loading').waitFor();
    expect(await balances.textContent()).not.toContain(catalogOf('en').balances.none);
    release();
    await balances.getByTestId('balance-TST').waitFor();
    await context.close();
  });
});

function catalogOf(lang: string) {
  return catalog(lang) as {
    tickets: { drawn: string };
    wallet: { none: string };
    balances: { none: string };
  };
}
