// One wallet, many accounts (issue #28 item 3): any number of accounts could bind the same payout
// address, so a farmer collected every account's cap into one wallet. The per-account cap now also
// bounds all the accounts of one address together; operators see which accounts share an address;
// and PAYOUT_ADDRESS_ONE_ACCOUNT=true refuses a second account's binding of an address (3510), with
// real SIWE signatures checked against the dev chain.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { Address } from 'viem';
import {
  createAccount,
  createAsset,
  partnerCall,
  rewardedMission,
  sessionCookie,
  startTestApp,
} from './harness.ts';
import type { TestContext } from './harness.ts';
import { startTestChain } from './chain/chain-fixture.ts';

let ctx: TestContext;
let chain: Awaited<ReturnType<typeof startTestChain>>;
let assetId: string;

beforeAll(async () => {
  [ctx, chain] = await Promise.all([
    startTestApp({ env: { PAYOUT_ADDRESS_ONE_ACCOUNT: 'true' } }),
    startTestChain(),
  ]);
  assetId = await createAsset(ctx, { symbol: 'PNT', name: 'Points', decimals: 0 });
  const network = await ctx.admin('POST', '/admin/v1/chain-networks', {
    name: 'dev',
    chainId: chain.chainId,
    rpcUrl: chain.rpcUrl,
  });
  expect(network.statusCode, network.body).toBe(201);
});
afterAll(async () => {
  await ctx?.close();
  await chain?.cleanup();
});

/** Binds the address to the account as a wallet of an earlier binding would have (no setting in the way). */
async function boundBefore(accountId: string, address: string) {
  await sql`INSERT INTO user_wallets (account_id, address, chain_id, bound_at)
            VALUES (${accountId}, ${address.toLowerCase()}, ${chain.chainId}, now())`.execute(
    ctx.database.db,
  );
}

describe('caps per payout address', () => {
  it('the per-account cap bounds every account of one address together', async () => {
    const setup = await rewardedMission(ctx, assetId, { missionKey: 'farm', total: '1000', amount: '10' });
    const caps = await ctx.admin('PUT', `/admin/v1/budgets/${setup.budgetId}/caps`, {
      perAccountPerDay: '10',
      perPartnerPerDay: null,
    });
    expect(caps.statusCode, caps.body).toBe(200);
    const farmWallet = privateKeyToAccount(generatePrivateKey()).address;
    const honestWallet = privateKeyToAccount(generatePrivateKey()).address;
    const farmed = ['farm-1', 'farm-2', 'farm-3'];
    const accounts: string[] = [];
    for (const partnerUid of [...farmed, 'honest']) {
      const accountId = await createAccount(ctx, { link: { partnerId: setup.partnerId, partnerUid } });
      accounts.push(accountId);
      await boundBefore(accountId, partnerUid === 'honest' ? honestWallet : farmWallet);
    }
    for (const partnerUid of [...farmed, 'honest']) {
      const answer = await partnerCall(ctx, setup, {
        method: 'POST',
        url: '/v1/achieve',
        body: { partnerUid, missionKey: 'farm', completed: true },
      });
      expect(answer.statusCode, answer.body).toBe(200);
    }
    const claims = await ctx.database.db
      .selectFrom('claims')
      .select(['partner_uid', 'status', 'reason'])
      .where('budget_id', '=', setup.budgetId)
      .orderBy('partner_uid')
      .execute();
    expect(claims.map((c) => `${c.partner_uid}:${c.status}:${c.reason}`)).toEqual([
      'farm-1:REQUESTED:null',
      'farm-2:REJECTED:CAP_REACHED',
      'farm-3:REJECTED:CAP_REACHED',
      'honest:REQUESTED:null',
    ]);
    expect((await ctx.admin('GET', `/admin/v1/budgets/${setup.budgetId}`)).json().remaining).toBe('980');

    // The operator sees the three accounts behind the farm wallet (a VIEWER may read it).
    const viewer = (
      await ctx.admin('POST', '/admin/v1/admin-credentials', { name: 'v', role: 'VIEWER' })
    ).json().secret;
    const shared = await ctx.admin('GET', '/admin/v1/payout-addresses/shared', undefined, viewer);
    expect(shared.statusCode, shared.body).toBe(200);
    expect(shared.json()).toMatchObject({ total: 1, items: [{ address: farmWallet.toLowerCase() }] });
    expect(
      shared
        .json<{ items: Array<{ accounts: Array<{ accountId: string }> }> }>()
        .items[0]?.accounts.map((a) => a.accountId)
        .sort(),
    ).toEqual(accounts.slice(0, 3).sort());
  });
});

describe('PAYOUT_ADDRESS_ONE_ACCOUNT=true', () => {
  async function bind(accountId: string, wallet: ReturnType<typeof privateKeyToAccount>) {
    const cookie = await sessionCookie(ctx, accountId);
    const headers = { cookie, origin: ctx.config.publicBaseUrl };
    const challenge = await ctx.app.inject({
      method: 'GET',
      url: `/v1/me/wallet/challenge?address=${wallet.address as Address}`,
      headers,
    });
    expect(challenge.statusCode, challenge.body).toBe(200);
    const message = challenge.json<{ message: string }>().message;
    return ctx.app.inject({
      method: 'POST',
      url: '/v1/me/wallet',
      headers,
      payload: { message, signature: await wallet.signMessage({ message }) },
    });
  }

  it("refuses a second account's binding of an address, and still lets the first rebind it", async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const first = await createAccount(ctx);
    const second = await createAccount(ctx);
    expect((await bind(first, wallet)).statusCode).toBe(200);
    const refused = await bind(second, wallet);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code: 3510, name: 'PAYOUT_ADDRESS_TAKEN' });
    const owners = await sql<{ account_id: string }>`
      SELECT account_id FROM user_wallets WHERE address = ${wallet.address.toLowerCase()}`.execute(
      ctx.database.db,
    );
    expect(owners.rows).toEqual([{ account_id: first }]);
    // Binding the same address again (a new signature) is the same account: allowed.
    expect((await bind(first, wallet)).statusCode).toBe(200);
    // The second account binds a wallet of its own.
    expect((await bind(second, privateKeyToAccount(generatePrivateKey()))).statusCode).toBe(200);
  });
});
