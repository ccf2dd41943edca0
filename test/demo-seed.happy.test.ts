// The demo campaign (#29 "the first hour"): seeded through the operator API on the development
// chain of `npm start`, it is a ready token campaign: a linked user who binds a wallet and completes
// a mission gets the token on chain (read from the chain), and the webhook endpoint for
// examples/partner-server is there with its secret.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createClaimChainPayout } from '../src/chain/claim-payout.ts';
import { startDevNetwork } from '../src/chain/dev-network.ts';
import type { DevChain } from '../src/chain/dev-chain.ts';
import { seedDemo } from '../src/demo/seed.ts';
import type { OperatorCall } from '../src/demo/seed.ts';
import { createAccount, partnerCall, sessionCookie, startTestApp } from './harness.ts';
import type { TestContext } from './harness.ts';
import { CHAIN_CACHE_DIR, TEST_KEK } from './chain/chain-fixture.ts';

let ctx: TestContext;
let chain: DevChain | undefined;
const silent = { info: () => {}, warn: () => {}, error: () => {} };

beforeAll(async () => {
  ctx = await startTestApp({
    env: {
      WALLET_KEK: TEST_KEK.toString('hex'),
      WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true',
      // The faucet route; the chain itself is started below, as npm start does.
      DEV_CHAIN: 'true',
    },
  });
  chain = await startDevNetwork(
    ctx.database.db,
    ctx.clock,
    { devChain: true, nodeEnv: 'development', dataDir: CHAIN_CACHE_DIR },
    silent,
  );
}, 120_000);
afterAll(async () => {
  await chain?.stop();
  await ctx?.close();
});

const operator: OperatorCall = async (method, url, body) => {
  const answer = await ctx.admin(method, url, body);
  return { status: answer.statusCode, body: answer.json() };
};

describe('the demo campaign', () => {
  it('is a ready token campaign: bind, complete, and the token is in the wallet on chain', async () => {
    expect(chain).toBeDefined();
    const demo = await seedDemo(operator, { partnerServerUrl: 'http://localhost:3000' });
    expect(demo.apiKey).toMatch(/^mrk_/);
    expect(demo.webhookSecret.length).toBeGreaterThan(16);
    const endpoints = (
      await ctx.admin('GET', `/admin/v1/webhook-endpoints?partnerId=${demo.partnerId}`)
    ).json<{
      items: Array<{ url: string }>;
    }>();
    expect(endpoints.items.map((e) => e.url)).toContain('http://localhost:3000/webhooks');
    const wallet = (await ctx.admin('GET', `/admin/v1/budgets/${demo.budgetId}/reward-wallet`)).json<{
      tokenBalance: string;
    }>();
    expect(wallet.tokenBalance).toBe('1000');

    // A user linked through the demo partner binds a wallet and completes the daily mission.
    const accountId = await createAccount(ctx, { link: { partnerId: demo.partnerId, partnerUid: 'alice' } });
    const cookie = await sessionCookie(ctx, accountId);
    const key = privateKeyToAccount(generatePrivateKey());
    const user = (method: 'GET' | 'POST', url: string, body?: unknown) =>
      ctx.app.inject({
        method,
        url,
        headers: { cookie, origin: ctx.config.publicBaseUrl },
        ...(body !== undefined && { payload: body as object }),
      });
    const { message } = (await user('GET', `/v1/me/wallet/challenge?address=${key.address}`)).json<{
      message: string;
    }>();
    expect(
      (await user('POST', '/v1/me/wallet', { message, signature: await key.signMessage({ message }) }))
        .statusCode,
    ).toBe(200);
    const achieved = await partnerCall(ctx, demo, {
      method: 'POST',
      url: '/v1/achieve',
      body: { partnerUid: 'alice', missionKey: 'daily-login', completed: true },
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
    const token = await ctx.database.db
      .selectFrom('chain_assets')
      .select('token_address')
      .where('asset_id', '=', 'ast_devtoken')
      .executeTakeFirstOrThrow();
    expect(await chain?.tokenBalance(token.token_address as Address, key.address)).toBe(25n * 10n ** 17n);
  }, 180_000);
});
