// The console's chain payouts list (issue #31 item 17) with the data an operator has: hundreds of
// payouts of an 18-decimal token and a 0-decimal one, 66-character hashes, replaced transactions, a
// stuck one, two networks (one with an explorer). The page in en, ko and ja at 390x844 and 1280x800:
// fits, no text under 11 px, axe clean, no English catalog word; screenshots
// docs/screenshots/console-payouts-<lang>-<size>.png. Then what an operator does with it: read an
// amount, open a transaction on the explorer, find the stuck one, filter, page. And the assets page
// (issue #29): the 18-decimal token paid on Kaia Kairos is marked with its network and its contract;
// screenshots docs/screenshots/console-assets-<lang>-<size>.png.
// The outbox rows are written straight into the database: the page reads them as the worker leaves
// them, and signing hundreds on a dev chain would only slow the test.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SHARED_WORDS } from '../../web/src/shared/shared-words.ts';
import type { TestContext } from '../harness.ts';
import { describeUnless, needsChromium } from '../requirements.ts';
import { openConsole, settle, startBrowserApp } from './browser-app.ts';
import type { BrowserApp } from './browser-app.ts';
import { seedRealAssets } from './real-assets.ts';
import { catalogStrings, DESKTOP, englishOnlyWords, pageProblems, PHONE, SHOTS } from './page-checks.ts';

const LANGUAGES = ['en', 'ko', 'ja'] as const;
const catalog = (lang: string) =>
  JSON.parse(readFileSync(`web/src/console/locales/${lang}.json`, 'utf8')) as unknown;
const EXPLORER = 'https://kairos.kaiascan.io/tx/{hash}';
const TOKEN_PAYOUTS = 260;
const GEM_PAYOUTS = 60;
const hash = (seed: string) => `0x${createHash('sha256').update(seed).digest('hex')}`;
const address = (seed: string) => hash(seed).slice(0, 42);

let ctx: TestContext;
let app: BrowserApp;
const ids = { tokenBudget: '', gemBudget: '', kaia: '', local: '', stuckTx: '', replacedTx: '' };

/** A network, a reward wallet on it for the budget, and its payouts as the worker writes them. */
async function seedWallet(
  networkId: string,
  budgetId: string,
  payouts: Array<{
    status: string;
    amount: string;
    minutesAgo: number;
    hashes: string[];
    lastError?: string;
  }>,
): Promise<void> {
  const db = ctx.database.db;
  const walletId = `rwl_${budgetId}`;
  const now = Date.now();
  await sql`INSERT INTO reward_wallets (id, budget_id, network_id, address, encrypted_key, key_origin, created_at)
            VALUES (${walletId}, ${budgetId}, ${networkId}, ${address(walletId)}, 'not-a-key', 'CREATED', now())`.execute(
    db,
  );
  let nonce = 0;
  for (const p of payouts) {
    const id = `cpo_${budgetId}_${nonce}`;
    const signedAt = new Date(now - p.minutesAgo * 60_000);
    const current = p.hashes[p.hashes.length - 1] as string;
    const settled = p.status === 'CONFIRMED' || p.status === 'REVERTED' || p.status === 'FAILED';
    await sql`INSERT INTO chain_payouts (id, claim_id, budget_id, wallet_id, account_id, nonce, to_address, amount,
                token_address, raw_tx, tx_hash, gas_limit, max_fee_per_gas, max_priority_fee_per_gas, status,
                mined_tx_hash, block_number, broadcasts, replacements, last_error, signed_at, settled_at, updated_at)
              VALUES (${id}, ${`clm_${id}`}, ${budgetId}, ${walletId}, ${`acc_${nonce}`}, ${nonce},
                ${address(`user-${nonce}`)}, ${p.amount}::numeric, ${address('token')}, '0x02', ${current}, 60000,
                '25000000000'::numeric, '1000000000'::numeric, ${p.status},
                ${p.status === 'CONFIRMED' ? current : null}, ${p.status === 'CONFIRMED' ? 150_000_000 + nonce : null},
                ${p.hashes.length + (p.status === 'BROADCAST' ? 3 : 0)}, ${p.hashes.length - 1}, ${p.lastError ?? null},
                ${signedAt}, ${settled ? signedAt : null}, ${signedAt})`.execute(db);
    for (const [i, tx] of p.hashes.entries()) {
      const last = i === p.hashes.length - 1;
      const txStatus = !last ? 'REPLACED' : p.status === 'CONFIRMED' ? 'MINED' : 'SIGNED';
      await sql`INSERT INTO chain_payout_txs (tx_hash, payout_id, raw_tx, max_fee_per_gas, max_priority_fee_per_gas, status, signed_at)
                VALUES (${tx}, ${id}, '0x02', '25000000000'::numeric, '1000000000'::numeric, ${txStatus},
                  ${new Date(signedAt.getTime() + i * 1000)})`.execute(db);
    }
    nonce += 1;
  }
  await sql`INSERT INTO reward_wallet_nonces (wallet_id, next_nonce) VALUES (${walletId}, ${nonce})`.execute(
    db,
  );
}

describeUnless(needsChromium())('the console lists chain payouts (issue #31 item 17)', () => {
  beforeAll(async () => {
    app = await startBrowserApp();
    ctx = app.ctx;
    const { devt, tokenBudget, gemBudget } = await seedRealAssets(ctx, { gemTotal: '9999999999' });
    ids.tokenBudget = tokenBudget;
    ids.gemBudget = gemBudget;
    ids.kaia = 'net_kairos';
    ids.local = 'net_local';
    await sql`INSERT INTO chain_networks (id, name, chain_id, rpc_url, confirmations, explorer_tx_url, created_at)
              VALUES (${ids.kaia}, 'Kaia Kairos testnet', 1001, 'http://127.0.0.1:9', 3, ${EXPLORER}, now()),
                     (${ids.local}, 'Local dev chain', 31337, 'http://127.0.0.1:9', 1, NULL, now())`.execute(
      ctx.database.db,
    );
    // DEVT is paid on Kaia Kairos (the assets page marks it); GEM is kept in the ledger only.
    await sql`INSERT INTO chain_assets (asset_id, network_id, token_address, created_at)
              VALUES (${devt}, ${ids.kaia}, ${address('token')}, now())`.execute(ctx.database.db);
    const amounts = ['1234567891000000000000000', '1000000000000', '1123456789012345678'];
    ids.stuckTx = hash('stuck');
    ids.replacedTx = hash('replaced-0');
    await seedWallet(
      ids.kaia,
      ids.tokenBudget,
      Array.from({ length: TOKEN_PAYOUTS }, (_, i) => {
        // Nonce order is signing order: the oldest first. The newest few are still on their way;
        // one, an hour old, is stuck; one was replaced once and then mined; one reverted.
        const minutesAgo = (TOKEN_PAYOUTS - i) * 7;
        if (i === TOKEN_PAYOUTS - 12)
          return { status: 'BROADCAST', amount: amounts[0] as string, minutesAgo: 60, hashes: [ids.stuckTx] };
        if (i === TOKEN_PAYOUTS - 20)
          return {
            status: 'CONFIRMED',
            amount: amounts[2] as string,
            minutesAgo,
            hashes: [ids.replacedTx, hash('replaced-1')],
          };
        if (i === TOKEN_PAYOUTS - 25)
          return {
            status: 'REVERTED',
            amount: amounts[1] as string,
            minutesAgo,
            hashes: [hash(`tx-${i}`)],
            lastError:
              'execution reverted: ERC20InsufficientBalance(0x5aC0e3a7a1c0b1f4e1b2c3d4e5f60718293a4b5c, 0, 1000000000000)',
          };
        if (i >= TOKEN_PAYOUTS - 3)
          return {
            status: 'SIGNED',
            amount: amounts[i % 3] as string,
            minutesAgo: 0,
            hashes: [hash(`tx-${i}`)],
          };
        return {
          status: 'CONFIRMED',
          amount: amounts[i % 3] as string,
          minutesAgo,
          hashes: [hash(`tx-${i}`)],
        };
      }),
    );
    await seedWallet(
      ids.local,
      ids.gemBudget,
      Array.from({ length: GEM_PAYOUTS }, (_, i) => ({
        status: 'CONFIRMED',
        amount: '1234567',
        minutesAgo: 3 + i * 45,
        hashes: [hash(`gem-${i}`)],
      })),
    );
    mkdirSync(SHOTS, { recursive: true });
  }, 300_000);

  afterAll(async () => {
    await app?.close();
  });

  it('in en, ko and ja at phone and desktop sizes: fits, no text under 11 px, axe clean, no English catalog word', async () => {
    const english = [...catalogStrings(catalog('en')), ...catalogStrings(SHARED_WORDS.en)];
    // The data's own words: names of budgets, assets and networks, and a revert reason.
    const data = [
      'Winter festival token pool',
      'Gems',
      'Dev token',
      'Kaia Kairos testnet',
      'Local dev chain',
      'execution reverted ERC20InsufficientBalance',
      'English',
      // The signed-in credential's name in the header.
      'OWNER test owner token',
      // The networks table's RPC and explorer columns show URLs; "hash" is the explorer's placeholder.
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
        await settle(app, page, '/console/chain');
        await page.getByTestId('chain-payout').first().waitFor();
        const where = `${lang} ${size}`;
        problems.push(...(await pageProblems(page, where, lang === 'en' ? undefined : words, data)));
        await page.screenshot({ path: `${SHOTS}/console-payouts-${lang}-${size}.png` });
        await context.close();
      }
    }
    expect(problems).toEqual([]);
  }, 600_000);

  it('shows the newest 50 with amounts from their decimals, hashes linked and copyable, and the stuck one marked', async () => {
    const { context, page } = await openConsole(app, DESKTOP, 'en');
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await settle(app, page, '/console/chain');
    const rows = page.getByTestId('chain-payout');
    await rows.first().waitFor();
    expect(await rows.count()).toBe(50);
    // Newest first: the three just signed lead.
    expect(await rows.nth(0).getAttribute('data-status')).toBe('SIGNED');
    const amounts = await page.getByTestId('payout-amount').allTextContents();
    expect(amounts).toContain('1,234,567.891 DEVT');
    expect(amounts).toContain('0.000001 DEVT');
    expect(amounts.some((a) => a.startsWith('1.123456') && a.endsWith('DEVT'))).toBe(true);
    // The stuck one (broadcast an hour ago, not confirmed) says so; nothing else does.
    const stuck = page.locator('[data-testid="chain-payout"][data-stuck="true"]');
    expect(await stuck.count()).toBe(1);
    expect(await stuck.getByTestId('payout-tx').getAttribute('data-value')).toBe(ids.stuckTx);
    expect(await stuck.getByTestId('payout-stuck').textContent()).toContain('Stuck');
    // Its hash: shortened, linked to the explorer with the whole hash, and copied whole.
    const tx = stuck.getByTestId('payout-tx');
    expect(await tx.locator('a').getAttribute('href')).toBe(EXPLORER.replace('{hash}', ids.stuckTx));
    expect(await tx.locator('code').textContent()).toBe(
      `${ids.stuckTx.slice(0, 6)}…${ids.stuckTx.slice(-4)}`,
    );
    await tx.getByRole('button').click();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(ids.stuckTx);
    // The replaced transaction is listed under the one that was mined.
    const replaced = page.locator(`[data-value="${ids.replacedTx}"]`);
    expect(await replaced.count()).toBe(1);
    await context.close();
  });

  it('filters by status, network and wallet, and pages through all of them without repeating one', async () => {
    const { context, page } = await openConsole(app, DESKTOP, 'en');
    await settle(app, page, '/console/chain');
    await page.getByTestId('chain-payout').first().waitFor();
    const filters = page.getByRole('form', { name: 'Filter payouts' });
    await filters.getByLabel('Status').selectOption('BROADCAST');
    await filters.getByRole('button', { name: 'Show payouts' }).click();
    await page.waitForURL(/status=BROADCAST/);
    // Until the filtered answer has replaced the list (on a busy machine it comes after networkidle).
    await expect.poll(() => page.getByTestId('chain-payout').count(), { timeout: 30_000 }).toBe(1);
    expect(await page.getByTestId('payout-tx').getAttribute('data-value')).toBe(ids.stuckTx);

    await settle(app, page, `/console/chain?networkId=${ids.local}`);
    await page.getByTestId('chain-payout').first().waitFor();
    const gems = await page.getByTestId('payout-amount').allTextContents();
    expect(gems).toHaveLength(50);
    expect(new Set(gems)).toEqual(new Set(['1,234,567 GEM']));
    // No explorer on this network: the hash is copyable but not a link.
    expect(await page.getByTestId('payout-tx').first().locator('a').count()).toBe(0);

    // The token wallet, all pages: every payout once.
    await settle(app, page, `/console/chain?budgetId=${ids.tokenBudget}`);
    const seen: string[] = [];
    for (let pageNo = 0; pageNo < 10; pageNo++) {
      await page.getByTestId('chain-payout').first().waitFor();
      seen.push(
        ...(await page
          .getByTestId('payout-tx')
          .evaluateAll((els) => els.map((e) => e.getAttribute('data-value') ?? ''))),
      );
      const older = page.getByRole('link', { name: 'Older payouts' });
      if ((await older.count()) === 0) break;
      const before = await page.getByTestId('payout-tx').first().getAttribute('data-value');
      await older.click();
      await page.waitForFunction(
        `document.querySelector('[data-testid="payout-tx"]')?.getAttribute('data-value') !== ${JSON.stringify(before)}`,
      );
      await page.waitForLoadState('networkidle');
    }
    expect(seen).toHaveLength(TOKEN_PAYOUTS);
    expect(new Set(seen).size).toBe(TOKEN_PAYOUTS);
    await page.getByRole('link', { name: 'Newest' }).click();
    await expect
      .poll(() => page.getByTestId('chain-payout').first().getAttribute('data-status'), { timeout: 30_000 })
      .toBe('SIGNED');
    await context.close();
  });

  it('(issue #29) the assets page marks the asset on a chain, in en, ko and ja at phone and desktop sizes', async () => {
    const english = [...catalogStrings(catalog('en')), ...catalogStrings(SHARED_WORDS.en)];
    const data = ['Gems', 'Dev token', 'Kaia Kairos testnet', 'English', 'OWNER test owner token'];
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
        await settle(app, page, '/console/assets');
        await page.getByTestId('asset-contract').waitFor();
        const where = `${lang} ${size}`;
        problems.push(...(await pageProblems(page, where, lang === 'en' ? undefined : words, data)));
        await page.screenshot({ path: `${SHOTS}/console-assets-${lang}-${size}.png`, fullPage: true });
        await context.close();
      }
    }
    expect(problems).toEqual([]);

    // What the operator reads: DEVT on Kaia Kairos, its 42-character contract shortened, linked to
    // the explorer's token page and copied whole; GEM in the ledger only.
    const { context, page } = await openConsole(app, DESKTOP, 'en');
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await settle(app, page, '/console/assets');
    const token = address('token');
    const devt = page.locator('[data-testid="asset-row"][data-symbol="DEVT"]');
    expect(await devt.textContent()).toContain('On chain: Kaia Kairos testnet');
    expect(await devt.textContent()).toContain('18');
    const contract = devt.getByTestId('asset-contract');
    expect(await contract.getAttribute('data-value')).toBe(token);
    expect(await contract.locator('code').textContent()).toBe(`${token.slice(0, 6)}…${token.slice(-4)}`);
    expect(await contract.locator('a').getAttribute('href')).toBe(
      `https://kairos.kaiascan.io/token/${token}`,
    );
    await contract.getByRole('button').click();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(token);
    const gem = page.locator('[data-testid="asset-row"][data-symbol="GEM"]');
    expect(await gem.textContent()).toContain('Ledger only');
    expect(await gem.getByTestId('asset-contract').count()).toBe(0);
    await context.close();
  }, 600_000);

  it('(item 18) the webhook form says what THIS deployment accepts: public addresses only, http allowed outside production', async () => {
    const { context, page } = await openConsole(app, DESKTOP, 'en');
    await settle(app, page, '/console/webhooks');
    const url = page.getByLabel('URL');
    const hint = await page.locator(`[id="${await url.getAttribute('aria-describedby')}"]`).textContent();
    expect(hint).toContain('https or http, on a public address (not localhost');
    expect(hint).not.toContain('including localhost');
    await context.close();
  });
});
