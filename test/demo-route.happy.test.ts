// The console's "Start the demo" (POST /admin/v1/demo, #29 "the first hour"): an OWNER of a
// development service seeds what `npm run demo` seeds (src/demo/seed.ts), in one operator
// transaction: a refused step keeps nothing. OPERATOR and VIEWER are refused (901); production
// refuses it with 3625 (test/demo-route.errors.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevNetwork } from '../src/chain/dev-network.ts';
import type { DevChain } from '../src/chain/dev-chain.ts';
import { ADMIN_TOKEN, startTestApp } from './harness.ts';
import type { TestContext } from './harness.ts';
import { CHAIN_CACHE_DIR, TEST_KEK } from './chain/chain-fixture.ts';

let ctx: TestContext;
let chain: DevChain | undefined;
const silent = { info: () => {}, warn: () => {}, error: () => {} };

beforeAll(async () => {
  ctx = await startTestApp({
    env: { WALLET_KEK: TEST_KEK.toString('hex'), WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true', DEV_CHAIN: 'true' },
  });
}, 120_000);
afterAll(async () => {
  await chain?.stop();
  await ctx?.close();
});

const count = async (table: 'partners' | 'budgets' | 'promotions') =>
  Number(
    (
      await ctx.database.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('POST /admin/v1/demo', () => {
  it('before the dev token is there: 409 with the refused step, and nothing kept', async () => {
    const before = await count('partners');
    const answer = await ctx.admin('POST', '/admin/v1/demo', {});
    expect(answer.statusCode, answer.body).toBe(409);
    expect(answer.json()).toMatchObject({ code: 3626, name: 'DEMO_SEED_FAILED' });
    expect(answer.json<{ message: string }>().message).toContain('/admin/v1/budgets');
    // The partner and its key were created before the budget was refused: rolled back with it.
    expect(await count('partners')).toBe(before);
  });

  it('an OPERATOR may not start it (OWNER only)', async () => {
    const operator = (
      await ctx.admin('POST', '/admin/v1/admin-credentials', { name: 'ops', role: 'OPERATOR' })
    ).json<{ secret: string }>();
    const answer = await ctx.admin('POST', '/admin/v1/demo', {}, operator.secret);
    expect(answer.statusCode).toBe(403);
    expect(answer.json()).toMatchObject({ code: 901 });
  });

  it('seeds the demo campaign once the dev chain is up: funded on chain, webhook endpoint, the command', async () => {
    chain = await startDevNetwork(
      ctx.database.db,
      ctx.clock,
      { devChain: true, nodeEnv: 'development', dataDir: CHAIN_CACHE_DIR },
      silent,
    );
    const answer = await ctx.app.inject({
      method: 'POST',
      url: '/admin/v1/demo',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-request-id': 'demo-from-console' },
      payload: { partnerServerUrl: 'http://127.0.0.1:3999/' },
    });
    expect(answer.statusCode, answer.body).toBe(201);
    const demo = answer.json<{
      partnerId: string;
      apiKey: string;
      webhookSecret: string;
      budgetId: string;
      missionKeys: string[];
      partnerServerCommand: string;
    }>();
    expect(demo.apiKey).toMatch(/^mrk_/);
    expect(demo.missionKeys).toEqual(['daily-login', 'play-3-games']);
    expect(demo.partnerServerCommand).toContain(`MRS_API_KEY=${demo.apiKey}`);
    expect(demo.partnerServerCommand).toContain('PORT=3999 PUBLIC_URL=http://127.0.0.1:3999');
    const wallet = (await ctx.admin('GET', `/admin/v1/budgets/${demo.budgetId}/reward-wallet`)).json<{
      tokenBalance: string;
    }>();
    expect(wallet.tokenBalance).toBe('1000');
    const endpoints = (
      await ctx.admin('GET', `/admin/v1/webhook-endpoints?partnerId=${demo.partnerId}`)
    ).json<{ items: Array<{ url: string }> }>();
    expect(endpoints.items.map((e) => e.url)).toEqual(['http://127.0.0.1:3999/webhooks']);
    // The key works on the partner API.
    const check = await ctx.app.inject({
      method: 'GET',
      url: '/v1/mission-users?partnerUid=alice',
      headers: { 'x-partner-id': demo.partnerId, 'x-api-key': demo.apiKey },
    });
    expect(check.statusCode, check.body).toBe(200);
    // Each step is in the audit log under the caller's name.
    const audited = await ctx.database.db
      .selectFrom('audit_events')
      .select(['actor_name', 'entity_type'])
      .where('request_id', '=', 'demo-from-console')
      .execute();
    expect(audited.some((row) => row.entity_type === 'partner')).toBe(true);
    expect(new Set(audited.map((row) => row.actor_name))).toEqual(new Set(['ADMIN_TOKEN']));
  }, 180_000);

  it('with a ledger asset: the same campaign without a reward wallet', async () => {
    const asset = (
      await ctx.admin('POST', '/admin/v1/reward-assets', { symbol: 'PTS', name: 'Points', decimals: 1 })
    ).json<{ id: string }>();
    const answer = await ctx.admin('POST', '/admin/v1/demo', { assetId: asset.id });
    expect(answer.statusCode, answer.body).toBe(201);
    expect(answer.json()).toMatchObject({
      rewardWalletAddress: null,
      partnerServerUrl: 'http://localhost:3000',
    });
  });
});
