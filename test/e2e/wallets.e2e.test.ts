// Every wallet connector of the mission page in headless Chromium, each to the end of the journey:
// the user binds a wallet by signing in the page, the partner reports a completion, the payout runs
// on the dev chain, and the token is in that wallet (balance read from the chain, not our tables).
// Connectors: two injected wallets announced by EIP-6963; the LINE Mini Dapp SDK, loaded from its
// configured address (a stand-in served here that speaks the SDK's methods and signs as a legacy
// Kaia wallet does, KIP-97); the development wallet whose key stays in the browser.
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Address, Hex } from 'viem';
import { hexToString } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createClaimChainPayout } from '../../src/chain/claim-payout.ts';
import { kip97Hash } from '../../src/chain/user-wallets.ts';
import { SESSION_COOKIE } from '../../src/http/session.ts';
import { createAccount, partnerCall, sessionCookie, setupMission } from '../harness.ts';
import type { TestContext } from '../harness.ts';
import { balanceOf, chainBudget, TEST_KEK } from '../chain/chain-fixture.ts';
import type { ChainBudget } from '../chain/chain-fixture.ts';
import { freePort } from './browser.ts';
import { startBrowserAppWithChain } from './browser-app.ts';
import type { BrowserApp, TestChain } from './browser-app.ts';
import { describeUnless, needsChromium } from '../requirements.ts';

const CLIENT_ID = 'test-mini-dapp-client';
/** The Mini Dapp SDK stand-in: DappPortalSDK.init({clientId, chainId}).getWalletProvider(). */
const SDK_STAND_IN = `
window.DappPortalSDK = {
  async init(options) {
    window.__miniDappInit = options;
    return {
      getWalletProvider() {
        return {
          async request({ method, params }) {
            if (method === 'kaia_requestAccounts' || method === 'kaia_accounts') return [window.__miniDappAddress];
            if (method === 'personal_sign') return window.__miniDappSign(String(params[0]));
            throw Object.assign(new Error('unsupported method ' + method), { code: 4200 });
          },
          getWalletType() { return 'Liff'; },
        };
      },
    };
  },
};`;

let ctx: TestContext;
let chain: TestChain;
let browser: Browser;
let app: BrowserApp & { chain: TestChain };
let appUrl: string;
let sdkServer: Server;
let budget: ChainBudget;
let setup: Awaited<ReturnType<typeof setupMission>>;

describeUnless(needsChromium())('wallet connectors in a real browser, each to a token on chain', () => {
  beforeAll(async () => {
    const sdkPort = await freePort();
    // The SDK comes from another origin, as Kaia's CDN would serve it.
    sdkServer = createServer((request, response) => {
      if (request.url === '/dapp-portal-sdk.js') {
        response.writeHead(200, { 'content-type': 'text/javascript' });
        response.end(SDK_STAND_IN);
      } else response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => sdkServer.listen(sdkPort, '127.0.0.1', resolve));
    app = await startBrowserAppWithChain({
      MINI_DAPP_CLIENT_ID: CLIENT_ID,
      MINI_DAPP_SDK_URL: `http://127.0.0.1:${sdkPort}/dapp-portal-sdk.js`,
    });
    ({ ctx, chain, browser, appUrl } = app);
    const network = await ctx.admin('POST', '/admin/v1/chain-networks', {
      name: 'Dev chain',
      chainId: chain.chainId,
      rpcUrl: chain.rpcUrl,
    });
    expect(network.statusCode).toBe(201);
    budget = await chainBudget(ctx, chain, { decimals: 6, networkId: network.json<{ id: string }>().id });
    setup = await setupMission(ctx);
    const rule = await ctx.admin('PUT', `/admin/v1/missions/${setup.missionId}/reward`, {
      type: 'FIXED',
      budgetId: budget.budgetId,
      amount: '2.5',
    });
    expect(rule.statusCode).toBe(200);
  }, 240_000);

  afterAll(async () => {
    await app?.close();
    await new Promise((resolve) => sdkServer?.close(resolve));
  });

  /** A linked user's signed-in browser context on the mission page. */
  async function userPage(
    partnerUid: string,
    options: { phone?: boolean } = {},
  ): Promise<{ context: BrowserContext; page: Page; accountId: string }> {
    const accountId = await createAccount(ctx, { link: { partnerId: setup.partnerId, partnerUid } });
    const context = await browser.newContext(
      options.phone ? { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true } : {},
    );
    const cookie = (await sessionCookie(ctx, accountId)).slice(SESSION_COOKIE.length + 1);
    await context.addCookies([{ name: SESSION_COOKIE, value: cookie, url: appUrl }]);
    return { context, page: await context.newPage(), accountId };
  }

  async function boundAddress(page: Page): Promise<string> {
    const address = page.getByTestId('wallet-address');
    await address.waitFor({ timeout: 20_000 });
    return ((await address.getAttribute('data-value')) ?? '').toLowerCase();
  }

  /** The partner reports the completion; the payout pays it; the token is read from the chain. */
  async function completeAndPay(partnerUid: string, accountId: string, wallet: Address): Promise<bigint> {
    const achieved = await partnerCall(ctx, setup, {
      method: 'POST',
      url: '/v1/achieve',
      body: { partnerUid, missionKey: setup.missionKey, completed: true },
    });
    expect(achieved.statusCode, achieved.body).toBe(200);
    const payout = createClaimChainPayout({ db: ctx.database.db, clock: ctx.clock, kek: TEST_KEK });
    const status = async () =>
      (
        await ctx.database.db
          .selectFrom('claims')
          .select('status')
          .where('account_id', '=', accountId)
          .executeTakeFirst()
      )?.status;
    for (let i = 0; i < 20 && (await status()) !== 'SUCCEEDED'; i++) await payout.run();
    expect(await status()).toBe('SUCCEEDED');
    return balanceOf(chain, budget.token, wallet);
  }

  it('EIP-6963: both announced wallets are offered by name and icon; the chosen one is bound and paid', async () => {
    const kaia = privateKeyToAccount(generatePrivateKey());
    const metamask = privateKeyToAccount(generatePrivateKey());
    const { context, page, accountId } = await userPage('eip6963-user');
    await context.exposeFunction('__sign', (which: string, messageHex: Hex) =>
      (which === 'kaia' ? kaia : metamask).signMessage({ message: hexToString(messageHex) }),
    );
    await context.addInitScript(
      ({ wallets, chainId }) => {
        // The page's window (this runs in the browser; the test's types have no DOM).
        const w = globalThis as unknown as EventTarget & {
          __sign(which: string, hex: string): Promise<string>;
          ethereum: unknown;
        };
        const icon =
          'data:image/svg+xml;base64,' +
          btoa(
            '<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><rect width="8" height="8"/></svg>',
          );
        const providers = wallets.map((wallet) => ({
          info: { uuid: crypto.randomUUID(), name: wallet.name, icon, rdns: wallet.rdns },
          provider: {
            request: async ({ method, params }: { method: string; params?: unknown[] }) => {
              if (method === 'eth_requestAccounts' || method === 'eth_accounts') return [wallet.address];
              if (method === 'eth_chainId') return `0x${chainId.toString(16)}`;
              if (method === 'personal_sign') return w.__sign(wallet.which, String(params?.[0]));
              throw Object.assign(new Error(`unsupported method ${method}`), { code: 4200 });
            },
          },
        }));
        const announce = () => {
          for (const detail of providers)
            w.dispatchEvent(new CustomEvent('eip6963:announceProvider', { detail: Object.freeze(detail) }));
        };
        w.addEventListener('eip6963:requestProvider', announce);
        announce();
        // The legacy global is one of them; it must not be offered a second time.
        w.ethereum = providers[1]?.provider;
      },
      {
        wallets: [
          { which: 'kaia', name: 'Kaia Wallet', rdns: 'io.kaiawallet', address: kaia.address },
          { which: 'metamask', name: 'MetaMask', rdns: 'io.metamask', address: metamask.address },
        ],
        chainId: chain.chainId,
      },
    );
    await page.goto(`${appUrl}/app`);
    const kaiaButton = page.getByRole('button', { name: 'Connect Kaia Wallet' });
    await kaiaButton.waitFor();
    expect(await page.getByRole('button', { name: 'Connect MetaMask' }).count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Connect wallet', exact: true }).count()).toBe(0);
    expect(await kaiaButton.locator('img').getAttribute('src')).toMatch(/^data:image\/svg\+xml;base64,/);
    await kaiaButton.click();
    expect(await boundAddress(page)).toBe(kaia.address.toLowerCase());
    expect(await completeAndPay('eip6963-user', accountId, kaia.address)).toBe(2_500_000n);
    expect(await balanceOf(chain, budget.token, metamask.address)).toBe(0n);
    await context.close();
  }, 180_000);

  it('the LINE Mini Dapp SDK: loaded from its configured address, init with the client id, a KIP-97 signature binds', async () => {
    const key = privateKeyToAccount(generatePrivateKey());
    const { context, page, accountId } = await userPage('mini-dapp-user');
    await context.exposeFunction('__miniDappSign', (messageHex: Hex) =>
      key.sign({ hash: kip97Hash(hexToString(messageHex)) }),
    );
    await context.addInitScript((address) => {
      (globalThis as unknown as { __miniDappAddress: string }).__miniDappAddress = address;
    }, key.address);
    await page.goto(`${appUrl}/app`);
    // No injected wallet here (as inside LINE): the SDK's wallet and the development wallet only.
    const button = page.getByRole('button', { name: /Connect a wallet through LINE/ });
    await button.waitFor();
    expect(await page.evaluate(() => 'DappPortalSDK' in globalThis)).toBe(false); // loaded on demand only
    await button.click();
    expect(await boundAddress(page)).toBe(key.address.toLowerCase());
    expect(
      await page.evaluate(() => (globalThis as unknown as { __miniDappInit: unknown }).__miniDappInit),
    ).toEqual({
      clientId: CLIENT_ID,
      chainId: String(chain.chainId),
    });
    expect(await completeAndPay('mini-dapp-user', accountId, key.address)).toBe(2_500_000n);
    await context.close();
  }, 180_000);

  it('on a phone with no wallet in the page: links open it in Kaia Wallet and MetaMask; not on a desktop, nor with a wallet in the page', async () => {
    const phone = await userPage('phone-user', { phone: true });
    await phone.page.goto(`${appUrl}/app?lang=en`);
    const links = phone.page.getByTestId('wallet-app-links');
    await links.waitFor();
    const here = phone.page.url();
    const kaia = phone.page.getByRole('link', { name: 'Open in Kaia Wallet' });
    expect(await kaia.getAttribute('href')).toBe(`https://app.kaiawallet.io/u/${here}`);
    const metamask = phone.page.getByRole('link', { name: 'Open in MetaMask' });
    expect(await metamask.getAttribute('href')).toBe(
      `https://link.metamask.io/dapp/${new URL(appUrl).host}/app?lang=en`,
    );
    expect(await links.textContent()).toContain("open this page in your wallet app's browser");
    // In the user's language (the page's ?lang=).
    await phone.page.goto(`${appUrl}/app?lang=ko`);
    await phone.page.getByRole('link', { name: 'Kaia Wallet에서 열기' }).waitFor();
    await phone.context.close();

    // A desktop browser: extensions, not apps; no links.
    const desktop = await userPage('desktop-user');
    await desktop.page.goto(`${appUrl}/app`);
    await desktop.page.getByRole('button', { name: 'Use the development wallet' }).waitFor();
    expect(await desktop.page.getByTestId('wallet-app-links').count()).toBe(0);
    await desktop.context.close();

    // A phone already in a wallet's browser (a provider announced): that wallet, no links.
    const inWallet = await userPage('in-wallet-user', { phone: true });
    await inWallet.context.addInitScript(() => {
      const w = globalThis as unknown as EventTarget;
      const detail = Object.freeze({
        info: {
          uuid: 'b0e3c1a4-0000-4000-8000-000000000001',
          name: 'Kaia Wallet',
          icon: '',
          rdns: 'io.kaiawallet',
        },
        provider: { request: async () => [] },
      });
      const announce = () => w.dispatchEvent(new CustomEvent('eip6963:announceProvider', { detail }));
      w.addEventListener('eip6963:requestProvider', announce);
      announce();
    });
    await inWallet.page.goto(`${appUrl}/app`);
    await inWallet.page.getByRole('button', { name: 'Connect Kaia Wallet' }).waitFor();
    expect(await inWallet.page.getByTestId('wallet-app-links').count()).toBe(0);
    await inWallet.context.close();
  }, 180_000);

  it('the development wallet: a key kept in the browser binds, and the token arrives at its address', async () => {
    const { context, page, accountId } = await userPage('dev-wallet-user');
    await page.goto(`${appUrl}/app`);
    await page.getByText('No wallet yet').waitFor();
    await page.getByRole('button', { name: 'Use the development wallet' }).click();
    const address = await boundAddress(page);
    const key = await page.evaluate(() =>
      (
        globalThis as unknown as { localStorage: { getItem(key: string): string | null } }
      ).localStorage.getItem('mrs.devWallet.key'),
    );
    expect(key).toMatch(/^0x[0-9a-f]{64}$/);
    expect(privateKeyToAccount(key as Hex).address.toLowerCase()).toBe(address);
    expect(await completeAndPay('dev-wallet-user', accountId, address as Address)).toBe(2_500_000n);
    await context.close();
  }, 180_000);
});
