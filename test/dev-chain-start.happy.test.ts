// The development chain of `npm start`: registered with its test token at the same address after a
// restart, payouts lost with the earlier instance paid again, the dev faucet, and the switches
// (DEV_CHAIN, refused in production, not started when another network is registered).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address } from 'viem';
import { loadConfig, parseDevChain } from '../src/config.ts';
import { createClaimChainPayout } from '../src/chain/claim-payout.ts';
import type { DevChain } from '../src/chain/dev-chain.ts';
import { DEV_ASSET_ID, DEV_NETWORK_ID, startDevNetwork } from '../src/chain/dev-network.ts';
import { buildApp } from '../src/app.ts';
import { ADMIN_TOKEN, partnerCall, setupMission, startTestApp } from './harness.ts';
import type { TestContext } from './harness.ts';
import { balanceOf, CHAIN_CACHE_DIR, TEST_KEK, userWithWallet } from './chain/chain-fixture.ts';

let ctx: TestContext;
let chain: DevChain | undefined;
const silent = { info: () => {}, warn: () => {}, error: () => {} };
const devConfig = () => ({ devChain: true, nodeEnv: 'development', dataDir: CHAIN_CACHE_DIR });

beforeAll(async () => {
  ctx = await startTestApp({ env: { DEV_CHAIN: 'true', WALLET_KEK: TEST_KEK.toString('hex') } });
});
afterAll(async () => {
  await chain?.stop();
  await ctx?.close();
});

const payoutsOf = (claimId: string) =>
  ctx.database.db
    .selectFrom('chain_payouts')
    .selectAll()
    .where('claim_id', '=', claimId)
    .orderBy('nonce')
    .execute();

const claimStatus = async (id: string) =>
  (await ctx.database.db.selectFrom('claims').select('status').where('id', '=', id).executeTakeFirstOrThrow())
    .status;

async function requestedClaim(budgetId: string, accountId: string, amount: string, partnerUid: string) {
  const setup = await setupMission(ctx);
  await ctx.admin('PUT', `/admin/v1/missions/${setup.missionId}/reward`, { type: 'FIXED', budgetId, amount });
  await ctx.database.db
    .insertInto('user_mappings')
    .values({ partner_id: setup.partnerId, partner_uid: partnerUid, account_id: accountId, region: 'KR' })
    .execute();
  const achieved = await partnerCall(ctx, setup, {
    method: 'POST',
    url: '/v1/achieve',
    body: { partnerUid, missionKey: setup.missionKey, completed: true },
  });
  expect(achieved.statusCode).toBe(200);
  return (
    await ctx.database.db
      .selectFrom('claims')
      .select('id')
      .where('partner_id', '=', setup.partnerId)
      .executeTakeFirstOrThrow()
  ).id;
}

describe('DEV_CHAIN configuration', () => {
  it('is on by default outside production, off in production, refused there, and checked', () => {
    expect(loadConfig({}).devChain).toBe(true);
    expect(loadConfig({ DEV_CHAIN: 'false' }).devChain).toBe(false);
    expect(parseDevChain(undefined, 'production')).toBe(false);
    expect(() => parseDevChain('true', 'production')).toThrow(/DEV_CHAIN.*refused when NODE_ENV=production/);
    expect(() => loadConfig({ DEV_CHAIN: 'yes' })).toThrow(/DEV_CHAIN.*'true' or 'false'/);
  });
});

describe('the development chain at start', () => {
  it('registers itself and its token, funds wallets, and after a restart pays again what was lost', async () => {
    chain = await startDevNetwork(ctx.database.db, ctx.clock, devConfig(), silent);
    expect(chain).toBeDefined();
    const asset = await ctx.database.db
      .selectFrom('chain_assets')
      .selectAll()
      .where('asset_id', '=', DEV_ASSET_ID)
      .executeTakeFirstOrThrow();
    expect(asset.network_id).toBe(DEV_NETWORK_ID);
    const token = asset.token_address as Address;

    // Operator: a budget on the dev token, its wallet, funded by the dev faucet.
    const budget = await ctx.admin('POST', '/admin/v1/budgets', {
      type: 'FIXED',
      assetId: DEV_ASSET_ID,
      name: 'Dev budget',
      total: '100',
    });
    expect(budget.statusCode).toBe(201);
    const budgetId = budget.json<{ id: string }>().id;
    expect((await ctx.admin('POST', `/admin/v1/budgets/${budgetId}/reward-wallet`, {})).statusCode).toBe(201);
    const funded = await ctx.admin('POST', `/admin/v1/budgets/${budgetId}/reward-wallet/dev-faucet`, {
      amount: '10',
    });
    expect(funded.statusCode).toBe(200);
    expect(funded.json()).toMatchObject({ tokenBalance: '10', warning: null });

    const user = await userWithWallet(ctx, chain?.chainId ?? 0);
    const payout = createClaimChainPayout({ db: ctx.database.db, clock: ctx.clock, kek: TEST_KEK });
    const first = await requestedClaim(budgetId, user.accountId, '2', 'dev-user-1');
    for (let i = 0; i < 10 && (await claimStatus(first)) !== 'SUCCEEDED'; i++) await payout.run();
    expect(await claimStatus(first)).toBe('SUCCEEDED');
    expect(await balanceOf(chain as DevChain, token, user.address)).toBe(2n * 10n ** 18n);

    // A second claim is signed (nonce 1) but the process stops before it is broadcast.
    const second = await requestedClaim(budgetId, user.accountId, '3', 'dev-user-2');
    const stopping = createClaimChainPayout({
      db: ctx.database.db,
      clock: ctx.clock,
      kek: TEST_KEK,
      holdAt: async (step) => {
        if (step === 'signed') throw new Error('stopped after signing');
      },
    });
    await expect(stopping.run()).rejects.toThrow(/stopped after signing/);
    expect((await payoutsOf(second)).map((p) => [p.status, Number(p.nonce)])).toEqual([['SIGNED', 1]]);
    await chain?.stop();

    // Restart: a new chain, the same token address, the network's RPC URL updated, the lost payout
    // REVERTED, and the claim paid again (nonce 2: the wallet's on-chain nonce follows the database).
    const firstRpcUrl = chain?.rpcUrl;
    chain = await startDevNetwork(ctx.database.db, ctx.clock, devConfig(), silent);
    expect(chain?.rpcUrl).not.toBe(firstRpcUrl);
    const network = await ctx.database.db.selectFrom('chain_networks').selectAll().execute();
    expect(network).toEqual([expect.objectContaining({ id: DEV_NETWORK_ID, rpc_url: chain?.rpcUrl })]);
    expect(
      await ctx.database.db
        .selectFrom('chain_assets')
        .select('token_address')
        .where('asset_id', '=', DEV_ASSET_ID)
        .execute(),
    ).toEqual([{ token_address: token }]);
    expect((await chain?.client.getCode({ address: token }))?.length).toBeGreaterThan(2);
    expect((await payoutsOf(second)).map((p) => p.status)).toEqual(['REVERTED']);
    expect(await balanceOf(chain as DevChain, token, user.address)).toBe(0n);

    // The reset is detected (block 0 differs): the payout confirmed on the earlier chain is marked
    // lost with it, and the wallet is funded again with what it owes (3) plus the faucet's 1000.
    const [row] = await ctx.database.db.selectFrom('chain_networks').selectAll().execute();
    expect(row?.reset_at).not.toBeNull();
    expect((await payoutsOf(first)).map((p) => [p.status, p.lost_with_chain_at !== null])).toEqual([
      ['CONFIRMED', true],
    ]);
    expect((await ctx.admin('GET', `/admin/v1/budgets/${budgetId}/reward-wallet`)).json()).toMatchObject({
      tokenBalance: '1003',
      warning: null,
    });
    const restarted = createClaimChainPayout({ db: ctx.database.db, clock: ctx.clock, kek: TEST_KEK });
    for (let i = 0; i < 10 && (await claimStatus(second)) !== 'SUCCEEDED'; i++) await restarted.run();
    expect(await claimStatus(second)).toBe('SUCCEEDED');
    expect((await payoutsOf(second)).map((p) => [p.status, Number(p.nonce)])).toEqual([
      ['REVERTED', 1],
      ['CONFIRMED', 2],
    ]);
    expect(await balanceOf(chain as DevChain, token, user.address)).toBe(3n * 10n ** 18n);
  });

  it('the faucet refuses a wallet of another network, and exists only with DEV_CHAIN', async () => {
    const now = ctx.clock.now();
    await ctx.database.db
      .insertInto('chain_networks')
      .values({
        id: 'net_other',
        name: 'Other',
        chain_id: 31337,
        rpc_url: chain?.rpcUrl ?? '',
        confirmations: 1,
        explorer_tx_url: null,
        created_at: now,
      })
      .execute();
    const asset = await ctx.admin('POST', '/admin/v1/chain-assets', {
      networkId: 'net_other',
      symbol: 'OTH',
      name: 'Other coin',
    });
    expect(asset.statusCode).toBe(201);
    const budget = await ctx.admin('POST', '/admin/v1/budgets', {
      type: 'FIXED',
      assetId: asset.json<{ id: string }>().id,
      name: 'Other budget',
      total: '1',
    });
    const budgetId = budget.json<{ id: string }>().id;
    expect((await ctx.admin('POST', `/admin/v1/budgets/${budgetId}/reward-wallet`, {})).statusCode).toBe(201);
    const refused = await ctx.admin('POST', `/admin/v1/budgets/${budgetId}/reward-wallet/dev-faucet`, {});
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code: 3620, name: 'NOT_A_DEV_CHAIN_WALLET' });

    const withoutDevChain = await buildApp({
      config: { ...ctx.config, devChain: false },
      database: ctx.database,
      clock: ctx.clock,
      logger: false,
    });
    const absent = await withoutDevChain.inject({
      method: 'POST',
      url: `/admin/v1/budgets/${budgetId}/reward-wallet/dev-faucet`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      payload: {},
    });
    await withoutDevChain.close();
    expect(absent.statusCode).toBe(404);
  });

  it('is not started when another network is registered, nor with DEV_CHAIN=false or in production', async () => {
    await chain?.stop();
    chain = undefined;
    expect(await startDevNetwork(ctx.database.db, ctx.clock, devConfig(), silent)).toBeUndefined();
    // Its row is not left with a dead URL in force: in use (a wallet), so it is disabled.
    const devNetwork = await ctx.database.db
      .selectFrom('chain_networks')
      .select('disabled_at')
      .where('id', '=', DEV_NETWORK_ID)
      .executeTakeFirstOrThrow();
    expect(devNetwork.disabled_at).not.toBeNull();
    expect(
      await startDevNetwork(ctx.database.db, ctx.clock, { ...devConfig(), devChain: false }, silent),
    ).toBeUndefined();
    expect(
      await startDevNetwork(ctx.database.db, ctx.clock, { ...devConfig(), nodeEnv: 'production' }, silent),
    ).toBeUndefined();
  });
});
