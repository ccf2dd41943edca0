// Binding a wallet checks the signature as wallets really make it and keeps challenges bounded:
// Kaia's KIP-97 prefix as well as Ethereum's EIP-191; a contract wallet asked by EIP-1271, where a
// network that does not answer is an outage (503, 3602) and not a bad signature; an account key's
// signature needs no network at all; an account holds at most five live challenges (a new one
// replaces the oldest) and an address at most twenty of other accounts' (then 3613).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address, Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createNetwork } from '../src/chain/service.ts';
import {
  kip97Hash,
  MAX_CHALLENGES_PER_ACCOUNT,
  MAX_CHALLENGES_PER_ADDRESS,
} from '../src/chain/user-wallets.ts';
import { createAccount, sessionCookie, startTestApp } from './harness.ts';
import type { TestContext } from './harness.ts';
import { startTestChain } from './chain/chain-fixture.ts';

let ctx: TestContext;
let chain: Awaited<ReturnType<typeof startTestChain>>;
let networkId: string;

beforeAll(async () => {
  [ctx, chain] = await Promise.all([startTestApp(), startTestChain()]);
  networkId = (
    await createNetwork(ctx.database.db, ctx.clock, {
      name: 'dev',
      chainId: chain.chainId,
      rpcUrl: chain.rpcUrl,
      confirmations: 1,
    })
  ).id;
});
afterAll(async () => {
  await ctx?.close();
  await chain?.cleanup();
});

/** Contract wallets as runtime code: isValidSignature answers the EIP-1271 magic value, or not. */
const ACCEPTING_WALLET = '0x631626ba7e60e01b60005260206000f3';
const REFUSING_WALLET = '0x63ffffffff60e01b60005260206000f3';

async function contractWallet(code: Hex): Promise<Address> {
  const address = privateKeyToAccount(generatePrivateKey()).address;
  await chain.client.request({ method: 'hardhat_setCode', params: [address, code] } as never);
  return address;
}

async function userOf() {
  const cookie = await sessionCookie(ctx, await createAccount(ctx));
  const call = (method: 'GET' | 'POST', url: string, body?: unknown) =>
    ctx.app.inject({
      method,
      url,
      headers: { cookie, origin: ctx.config.publicBaseUrl },
      ...(body !== undefined && { payload: body as object }),
    });
  const challenge = async (address: Address) => {
    const answer = await call('GET', `/v1/me/wallet/challenge?address=${address}`);
    expect(answer.statusCode, answer.body).toBe(200);
    return answer.json<{ message: string }>().message;
  };
  return { call, challenge };
}

async function withRpcDown<T>(run: () => Promise<T>): Promise<T> {
  const db = ctx.database.db;
  await db
    .updateTable('chain_networks')
    .set({ rpc_url: 'http://127.0.0.1:9/' })
    .where('id', '=', networkId)
    .execute();
  try {
    return await run();
  } finally {
    await db
      .updateTable('chain_networks')
      .set({ rpc_url: chain.rpcUrl })
      .where('id', '=', networkId)
      .execute();
  }
}

describe('signatures as wallets make them', () => {
  it("binds a Kaia wallet's KIP-97 signature ('\\x19Klaytn Signed Message') as well as EIP-191", async () => {
    const user = await userOf();
    const key = privateKeyToAccount(generatePrivateKey());
    const message = await user.challenge(key.address);
    const bound = await user.call('POST', '/v1/me/wallet', {
      message,
      signature: await key.sign({ hash: kip97Hash(message) }),
    });
    expect(bound.statusCode, bound.body).toBe(200);
    expect(bound.json()).toMatchObject({ address: key.address });
    // Another key's KIP-97 signature is still refused.
    const again = await user.challenge(key.address);
    const other = privateKeyToAccount(generatePrivateKey());
    const forged = await user.call('POST', '/v1/me/wallet', {
      message: again,
      signature: await other.sign({ hash: kip97Hash(again) }),
    });
    expect(forged.json()).toMatchObject({ code: 3611, name: 'SIWE_SIGNATURE_INVALID' });
  });

  it('binds a contract wallet that accepts the signature (EIP-1271) and refuses one that does not', async () => {
    const user = await userOf();
    const accepting = await contractWallet(ACCEPTING_WALLET);
    const message = await user.challenge(accepting);
    const bound = await user.call('POST', '/v1/me/wallet', { message, signature: '0x1234' });
    expect(bound.statusCode, bound.body).toBe(200);
    expect(bound.json()).toMatchObject({ address: accepting });
    const refusing = await contractWallet(REFUSING_WALLET);
    const refused = await user.call('POST', '/v1/me/wallet', {
      message: await user.challenge(refusing),
      signature: '0x1234',
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ code: 3611 });
  });

  it('a contract wallet with the network down is an outage (503, 3602) and the challenge stays usable', async () => {
    const user = await userOf();
    const accepting = await contractWallet(ACCEPTING_WALLET);
    const message = await user.challenge(accepting);
    const down = await withRpcDown(() =>
      user.call('POST', '/v1/me/wallet', { message, signature: '0x1234' }),
    );
    expect(down.statusCode).toBe(503);
    expect(down.json()).toEqual({
      code: 3602,
      name: 'CHAIN_RPC_UNAVAILABLE',
      message: expect.stringMatching(/contract wallet.*try again/),
    });
    // No RPC address (it may hold an API key) in the user's answer.
    expect(down.body).not.toContain('127.0.0.1:9');
    // Once the network is back the same signed challenge binds.
    const bound = await user.call('POST', '/v1/me/wallet', { message, signature: '0x1234' });
    expect(bound.statusCode, bound.body).toBe(200);
  });

  it("an account key's signature binds with the network down: no RPC is needed for it", async () => {
    const user = await userOf();
    const key = privateKeyToAccount(generatePrivateKey());
    const message = await user.challenge(key.address);
    const bound = await withRpcDown(async () =>
      user.call('POST', '/v1/me/wallet', { message, signature: await key.signMessage({ message }) }),
    );
    expect(bound.statusCode, bound.body).toBe(200);
    // A signature that recovers to no one could still be a contract wallet's, which only the
    // network can tell: with it down, an outage (3602), never a silent "bad signature".
    const again = await user.challenge(key.address);
    const wrong = await withRpcDown(async () =>
      user.call('POST', '/v1/me/wallet', {
        message: again,
        signature: await privateKeyToAccount(generatePrivateKey()).signMessage({ message: again }),
      }),
    );
    expect(wrong.json()).toMatchObject({ code: 3602 });
  });
});

describe('challenges are bounded', () => {
  it("an account's new challenge beyond five replaces its oldest, which can no longer bind", async () => {
    const user = await userOf();
    const key = privateKeyToAccount(generatePrivateKey());
    const messages: string[] = [];
    for (let i = 0; i <= MAX_CHALLENGES_PER_ACCOUNT; i++) {
      messages.push(await user.challenge(key.address));
      ctx.clock.advance(1000);
    }
    const live = await ctx.database.db
      .selectFrom('siwe_challenges')
      .select('nonce')
      .where('address', '=', key.address.toLowerCase())
      .execute();
    expect(live).toHaveLength(MAX_CHALLENGES_PER_ACCOUNT);
    const oldest = messages[0] ?? '';
    const refused = await user.call('POST', '/v1/me/wallet', {
      message: oldest,
      signature: await key.signMessage({ message: oldest }),
    });
    expect(refused.json()).toMatchObject({ code: 3610 });
    const newest = messages.at(-1) ?? '';
    const bound = await user.call('POST', '/v1/me/wallet', {
      message: newest,
      signature: await key.signMessage({ message: newest }),
    });
    expect(bound.statusCode, bound.body).toBe(200);
  });

  it('an address holds at most twenty live challenges of other accounts; then 3613 until they expire', async () => {
    const victim = privateKeyToAccount(generatePrivateKey());
    for (let i = 0; i < MAX_CHALLENGES_PER_ADDRESS; i++) await (await userOf()).challenge(victim.address);
    const owner = await userOf();
    const refused = await owner.call('GET', `/v1/me/wallet/challenge?address=${victim.address}`);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({
      code: 3613,
      name: 'WALLET_CHALLENGES_EXHAUSTED',
      message: expect.any(String),
    });
    ctx.clock.advance(11 * 60_000);
    const message = await owner.challenge(victim.address);
    const bound = await owner.call('POST', '/v1/me/wallet', {
      message,
      signature: await victim.signMessage({ message }),
    });
    expect(bound.statusCode, bound.body).toBe(200);
  });
});
