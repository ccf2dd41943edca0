// The claim that waits (#29): GET /admin/v1/waiting-rewards lists a completion of a user who has not
// linked (UNLINKED, a deferred reward) and a chain claim whose user has bound no wallet (NO_WALLET),
// filtered and counted; /v1/me/claims and /admin/v1/claims flag the latter with waitsForWallet, until
// the user binds a wallet on the asset's chain.
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partnerCall, rewardedMission, sessionCookie, startTestApp } from './harness.ts';
import type { MissionSetup, TestContext } from './harness.ts';
import { linkUsers } from './link-users.ts';

const CHAIN_ID = 31337;
let ctx: TestContext;
let rpc: Server;
let setup: MissionSetup & { budgetId: string };
let linkedAccount: string;

// Answers eth_chainId like a node of CHAIN_ID (network registration checks it); nothing is paid here.
function startFakeRpc(): Promise<Server> {
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      const answer = (call: { id: unknown; method: string }) => ({
        jsonrpc: '2.0',
        id: call.id,
        result: call.method === 'eth_chainId' ? `0x${CHAIN_ID.toString(16)}` : '0x0',
      });
      const parsed = JSON.parse(raw) as
        { id: unknown; method: string } | Array<{ id: unknown; method: string }>;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(Array.isArray(parsed) ? parsed.map(answer) : answer(parsed)));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

interface Waiting {
  items: Array<{
    kind: string;
    claimId: string | null;
    partnerUid: string;
    accountId: string | null;
    amount: string | null;
    assetSymbol: string;
    missionKey: string | null;
    unpaidAfter: string | null;
  }>;
  counts: { UNLINKED: number; NO_WALLET: number };
}
const waiting = async (query = '') =>
  (await ctx.admin('GET', `/admin/v1/waiting-rewards${query}`)).json<Waiting>();

beforeAll(async () => {
  rpc = await startFakeRpc();
  ctx = await startTestApp({ env: { WALLET_KEK: 'ab'.repeat(32) } });
  const network = await ctx.admin('POST', '/admin/v1/chain-networks', {
    name: 'fake',
    chainId: CHAIN_ID,
    rpcUrl: `http://127.0.0.1:${(rpc.address() as AddressInfo).port}/`,
  });
  const asset = await ctx.admin('POST', '/admin/v1/chain-assets', {
    networkId: network.json<{ id: string }>().id,
    symbol: 'ETH',
    name: 'Ether',
  });
  expect(asset.statusCode, asset.body).toBe(201);
  setup = await rewardedMission(ctx, asset.json<{ id: string }>().id, {
    missionKey: 'first-game',
    total: '1',
    amount: '0.25',
  });
  [linkedAccount] = (await linkUsers(ctx, setup.partnerId, ['linked-user'])) as [string];
  for (const partnerUid of ['linked-user', 'not-linked-yet']) {
    const achieved = await partnerCall(ctx, setup, {
      method: 'POST',
      url: '/v1/achieve',
      body: { partnerUid, missionKey: 'first-game', completed: true },
    });
    expect(achieved.statusCode, achieved.body).toBe(200);
  }
}, 120_000);
afterAll(async () => {
  await ctx?.close();
  await new Promise((resolve) => rpc?.close(resolve));
});

describe('rewards that wait', () => {
  it('lists the unlinked user (no claim yet) and the linked user without a wallet, and counts them', async () => {
    const all = await waiting();
    expect(all.counts).toEqual({ UNLINKED: 1, NO_WALLET: 1 });
    const unlinked = all.items.find((item) => item.kind === 'UNLINKED');
    expect(unlinked).toMatchObject({
      partnerUid: 'not-linked-yet',
      claimId: null,
      accountId: null,
      amount: '0.25',
      assetSymbol: 'ETH',
      missionKey: 'first-game',
    });
    // Paid if the user links within CLAIM_RESERVATION_TTL_SECONDS (30 days by default).
    expect(Date.parse(unlinked?.unpaidAfter ?? '') - ctx.clock.now().getTime()).toBeGreaterThan(
      29 * 86_400_000,
    );
    const noWallet = all.items.find((item) => item.kind === 'NO_WALLET');
    expect(noWallet).toMatchObject({ partnerUid: 'linked-user', accountId: linkedAccount, amount: '0.25' });
    expect(noWallet?.claimId).toMatch(/^clm_/);
  });

  it('filters by kind, partner user and account', async () => {
    expect((await waiting('?kind=UNLINKED')).items.map((i) => i.partnerUid)).toEqual(['not-linked-yet']);
    expect((await waiting('?kind=NO_WALLET')).counts).toEqual({ UNLINKED: 0, NO_WALLET: 1 });
    expect((await waiting('?partnerUid=linked-user')).counts).toEqual({ UNLINKED: 0, NO_WALLET: 1 });
    expect((await waiting(`?accountId=${linkedAccount}`)).items.map((i) => i.kind)).toEqual(['NO_WALLET']);
    expect((await waiting(`?partnerId=${setup.partnerId}&limit=1`)).items).toHaveLength(1);
  });

  it("the user's claims and the console's say the claim waits for a wallet, until one is bound", async () => {
    const cookie = await sessionCookie(ctx, linkedAccount);
    const mine = async () =>
      (await ctx.app.inject({ method: 'GET', url: '/v1/me/claims', headers: { cookie } })).json<{
        items: Array<{ status: string; waitsForWallet: boolean }>;
      }>().items;
    expect(await mine()).toEqual([expect.objectContaining({ status: 'REQUESTED', waitsForWallet: true })]);
    const listed = (await ctx.admin('GET', `/admin/v1/claims?accountId=${linkedAccount}`)).json<{
      items: Array<{ waitsForWallet: boolean }>;
    }>();
    expect(listed.items.map((c) => c.waitsForWallet)).toEqual([true]);

    // A wallet on another chain does not help; one on the asset's chain does.
    const wallets = ctx.database.db;
    await wallets
      .insertInto('user_wallets')
      .values({
        account_id: linkedAccount,
        address: '0x' + '1'.repeat(40),
        chain_id: 1,
        bound_at: ctx.clock.now(),
      })
      .execute();
    expect((await mine())[0]?.waitsForWallet).toBe(true);
    await wallets
      .updateTable('user_wallets')
      .set({ chain_id: CHAIN_ID })
      .where('account_id', '=', linkedAccount)
      .execute();
    expect((await mine())[0]?.waitsForWallet).toBe(false);
    expect((await waiting()).counts).toEqual({ UNLINKED: 1, NO_WALLET: 0 });
  });
});
