// The chain journey in headless Chromium: an operator sets up a token on the dev chain, a budget and
// its funded reward wallet; the user binds a wallet on the mission page by signing the SIWE challenge
// with the page's EIP-1193 wallet (a test key held by the test, exposed to the page as a provider);
// the partner reports a completion; the claim shows its transaction hash, linked to the explorer,
// and the user's balance on chain is the reward.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { Address, Hex } from 'viem';
import { hexToString } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createClaimChainPayout } from '../../src/chain/claim-payout.ts';
import { SESSION_COOKIE } from '../../src/http/session.ts';
import { ADMIN_TOKEN, createAccount, partnerCall, sessionCookie, setupMission } from '../harness.ts';
import type { TestContext } from '../harness.ts';
import { balanceOf, chainBudget, TEST_KEK } from '../chain/chain-fixture.ts';
import { CHROMIUM, hasChromium } from './browser.ts';
import { startBrowserAppWithChain } from './browser-app.ts';
import type { BrowserApp, TestChain } from './browser-app.ts';
import { describeUnless, needsChromium } from '../requirements.ts';

const runBrowser = hasChromium || process.env.REQUIRE_BROWSER === '1';
if (!runBrowser) console.warn(`chain e2e test SKIPPED: no Chromium at ${CHROMIUM}`);

let ctx: TestContext;
let chain: TestChain;
let browser: Browser;
let app: BrowserApp & { chain: TestChain };
let appUrl: string;

describeUnless(needsChromium())('the chain journey in a real browser', () => {
  beforeAll(async () => {
    app = await startBrowserAppWithChain();
    ({ ctx, chain, browser, appUrl } = app);
  }, 180_000);

  afterAll(async () => {
    await app?.close();
  });

  it('binds a wallet by signing in the page, and the reward arrives on chain with its hash shown', async () => {
    // Operator (through the API): a network with an explorer, a 6-decimal token, a budget, its
    // funded wallet, and a mission paying 2.5 tokens.
    const network = await ctx.admin('POST', '/admin/v1/chain-networks', {
      name: 'Dev chain',
      chainId: chain.chainId,
      rpcUrl: chain.rpcUrl,
      explorerTxUrl: 'https://explorer.test/tx/{hash}',
    });
    expect(network.statusCode).toBe(201);
    const budget = await chainBudget(ctx, chain, {
      decimals: 6,
      networkId: network.json<{ id: string }>().id,
    });
    const setup = await setupMission(ctx);
    const rule = await ctx.admin('PUT', `/admin/v1/missions/${setup.missionId}/reward`, {
      type: 'FIXED',
      budgetId: budget.budgetId,
      amount: '2.5',
    });
    expect(rule.statusCode).toBe(200);
    const accountId = await createAccount(ctx, {
      displayName: 'Mina',
      link: { partnerId: setup.partnerId, partnerUid: 'player-9' },
    });

    // The user's browser wallet: the key stays in the test; the page sees an EIP-1193 provider.
    const key = privateKeyToAccount(generatePrivateKey());
    const context = await browser.newContext();
    const cookie = (await sessionCookie(ctx, accountId)).slice(SESSION_COOKIE.length + 1);
    await context.addCookies([{ name: SESSION_COOKIE, value: cookie, url: appUrl }]);
    await context.exposeFunction('__testWalletSign', (messageHex: Hex) =>
      key.signMessage({ message: hexToString(messageHex) }),
    );
    await context.addInitScript(
      ({ address, chainId }) => {
        const w = globalThis as unknown as {
          ethereum: unknown;
          __testWalletSign(hex: string): Promise<string>;
        };
        w.ethereum = {
          request: async ({ method, params }: { method: string; params?: unknown[] }) => {
            if (method === 'eth_requestAccounts' || method === 'eth_accounts') return [address];
            if (method === 'eth_chainId') return `0x${chainId.toString(16)}`;
            if (method === 'personal_sign') return w.__testWalletSign(String(params?.[0]));
            throw Object.assign(new Error(`unsupported method ${method}`), { code: 4200 });
          },
        };
      },
      { address: key.address, chainId: chain.chainId },
    );
    const page = await context.newPage();
    await page.goto(`${appUrl}/app`);
    await page.getByText('No wallet yet').waitFor();
    await page.getByRole('button', { name: 'Connect wallet' }).click();
    await expect
      .poll(
        async () => (await page.getByTestId('wallet-address').getAttribute('data-value'))?.toLowerCase(),
        {
          timeout: 15_000,
        },
      )
      .toBe(key.address.toLowerCase());
    expect(await page.getByRole('button', { name: 'Use another wallet' }).count()).toBe(1);

    // The partner reports the completion; the worker pays it on chain.
    const achieved = await partnerCall(ctx, setup, {
      method: 'POST',
      url: '/v1/achieve',
      body: { partnerUid: 'player-9', missionKey: setup.missionKey, completed: true },
    });
    expect(achieved.statusCode).toBe(200);
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
    const mined = await ctx.database.db
      .selectFrom('chain_payouts')
      .select('mined_tx_hash')
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();

    // The page shows the claim with its transaction, linked to the explorer.
    await page.reload();
    const tx = page.getByTestId('claim-tx');
    await tx.waitFor();
    expect(await tx.getAttribute('data-tx-hash')).toBe(mined.mined_tx_hash);
    expect(await tx.getByRole('link').getAttribute('href')).toBe(
      `https://explorer.test/tx/${mined.mined_tx_hash}`,
    );
    expect(await page.locator('.claims li').first().textContent()).toContain('2.5');
    expect(await balanceOf(chain, budget.token, key.address as Address)).toBe(2_500_000n);
    await context.close();

    // The operator's console: the budget's wallet with its balances, the claim's transaction, and
    // a reconciliation without differences.
    const consoleContext = await browser.newContext();
    const operator = await consoleContext.newPage();
    await operator.goto(`${appUrl}/console`);
    await operator.getByLabel('Admin secret').fill(ADMIN_TOKEN);
    await operator.getByRole('button', { name: 'Sign in' }).click();
    await operator.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await operator.goto(`${appUrl}/console/budgets/${budget.budgetId}`);
    const address = operator.getByTestId('reward-wallet-address');
    await address.waitFor();
    expect((await address.textContent())?.toLowerCase()).toBe(budget.walletAddress.toLowerCase());
    expect(await operator.getByTestId('reward-wallet-warning').count()).toBe(0);
    // #31 item 11: gas in whole coins of the native currency, never a raw wei number.
    const gas = await operator.getByText(/in the native coin/).textContent();
    // The dev faucet gives the wallet about a thousand coins: 1e21 wei if shown raw.
    const coins = /^(\d{1,3}(?:,\d{3})*)(\.\d+)? in the native coin$/.exec(gas ?? '');
    expect(coins, String(gas)).not.toBeNull();
    expect(Number(coins?.[1]?.replaceAll(',', ''))).toBeLessThan(1_000_000);
    await operator.goto(`${appUrl}/console/claims?budgetId=${budget.budgetId}`);
    await operator.getByTestId('claim-tx').waitFor();
    expect(await operator.getByTestId('claim-tx').getByRole('link').getAttribute('href')).toBe(
      `https://explorer.test/tx/${mined.mined_tx_hash}`,
    );
    await operator.goto(`${appUrl}/console/chain`);
    // The networks table (the payouts list above it names the network on every row too).
    await operator
      .getByRole('table', { name: 'Chain networks' })
      .getByRole('cell', { name: /Dev chain/ })
      .waitFor();
    await operator.getByRole('button', { name: 'Reconcile now' }).click();
    await operator.getByTestId('reconcile-differences').first().waitFor();
    expect(await operator.getByTestId('reconcile-differences').allTextContents()).toContain('none');
    await consoleContext.close();
  }, 180_000); // a browser, a chain and a payout round: the other browser journeys take as long
});
