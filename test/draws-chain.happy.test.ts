// A lucky draw on a budget that pays on a chain (issue #28 item 1): its seed is mixed with the hash
// of the first block mined after the ticket close, so nobody (a reader of draw_seeds included) can
// compute the winners while tickets can still be added. The run waits (503) until that block is
// mined with the network's confirmations, and while the chain does not answer; it never takes
// another block. Anyone recomputes the winners from seed, block hash and tickets.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChainAsset, createNetwork } from '../src/chain/service.ts';
import { runDueDraws } from '../src/draws/service.ts';
import { partnerCall, setupMission, startTestApp } from './harness.ts';
import type { MissionSetup, TestContext } from './harness.ts';
import { linkUsers } from './link-users.ts';
import { startTestChain } from './chain/chain-fixture.ts';
import { freePort } from './free-port.ts';

let ctx: TestContext;
let chain: Awaited<ReturnType<typeof startTestChain>>;
let setup: MissionSetup;
let budgetId: string;
let networkId: string;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const rpc = (method: string, params: unknown[] = []) =>
  chain.client.request({ method: method as never, params: params as never });
/** Mines one block with this timestamp (seconds). */
const mineAt = (seconds: number) => rpc('evm_mine', [seconds]);
const latestSeconds = async () => Number((await chain.client.getBlock({ blockTag: 'latest' })).timestamp);

beforeAll(async () => {
  [ctx, chain] = await Promise.all([startTestApp({ now: new Date().toISOString() }), startTestChain()]);
  networkId = (
    await createNetwork(ctx.database.db, ctx.clock, {
      name: 'Dev chain',
      chainId: chain.chainId,
      rpcUrl: chain.rpcUrl,
      // Two: the block after the close and one on top of it.
      confirmations: 2,
    })
  ).id;
  const token = await chain.deployToken({ decimals: 18 });
  const asset = await createChainAsset(ctx.database.db, ctx.clock, {
    networkId,
    symbol: 'DEVT',
    name: 'Dev token',
    tokenAddress: token,
  });
  const budget = await ctx.admin('POST', '/admin/v1/budgets', {
    type: 'LUCKY_DRAW',
    assetId: asset.id,
    name: 'Chain draw',
    total: '1000',
  });
  expect(budget.statusCode, budget.body).toBe(201);
  budgetId = budget.json<{ id: string }>().id;
  setup = await setupMission(ctx, { missionKey: 'lucky', recurrence: 'DAILY' });
  await ctx.admin('PUT', `/admin/v1/missions/${setup.missionId}/reward`, { type: 'LUCKY_DRAW', budgetId });
}, 120_000);
afterAll(async () => {
  await ctx?.close();
  await chain?.cleanup();
});

async function complete(partnerUids: string[]) {
  await linkUsers(ctx, setup.partnerId, partnerUids);
  for (const partnerUid of partnerUids) {
    const answer = await partnerCall(ctx, setup, {
      method: 'POST',
      url: '/v1/achieve',
      body: { partnerUid, missionKey: 'lucky', completed: true },
    });
    expect(answer.statusCode, answer.body).toBe(200);
  }
}

interface DrawAnswer {
  id: string;
  status: string;
  seed: string | null;
  commitment: string;
  closesAt: string;
  tickets: string[] | null;
  winners: Array<{ ticketId: string }> | null;
  beacon: {
    chainId: number;
    networkName: string | null;
    blockNumber: number | null;
    blockHash: string | null;
  };
}

/** A draw closing `inSeconds` after the chain's newest block (the service's clock set to that block). */
async function drawClosingIn(
  inSeconds: number,
  winnersCount: number,
): Promise<{ draw: DrawAnswer; close: number }> {
  const chainNow = await latestSeconds();
  ctx.clock.set(new Date(chainNow * 1000).toISOString());
  const close = chainNow + inSeconds;
  const created = await ctx.admin('POST', '/admin/v1/draws', {
    budgetId,
    title: 'On chain',
    prizeAmount: '2.5',
    winnersCount,
    closesAt: new Date(close * 1000).toISOString(),
    scheduledAt: new Date(close * 1000).toISOString(),
  });
  expect(created.statusCode, created.body).toBe(201);
  return { draw: created.json<DrawAnswer>(), close };
}

describe('a draw on a chain budget', () => {
  it('waits for the first block mined after the close and its confirmations, then mixes its hash into the seed', async () => {
    const { draw, close } = await drawClosingIn(60, 2);
    expect(draw.beacon).toEqual({
      chainId: chain.chainId,
      networkName: 'Dev chain',
      blockNumber: null,
      blockHash: null,
    });
    await complete(['c-1', 'c-2', 'c-3', 'c-4', 'c-5']);
    // A ticket after the close (by the service's clock) is not in this draw.
    ctx.clock.set(new Date((close + 1) * 1000).toISOString());
    await complete(['c-late']);

    // No block after the close yet: the run waits with a 503 and the error body; nothing moved.
    const early = await ctx.admin('POST', `/admin/v1/draws/${draw.id}/run`);
    expect(early.statusCode, early.body).toBe(503);
    expect(early.json()).toMatchObject({ code: 3016, name: 'DRAW_WAITING_FOR_BLOCK' });
    expect(early.headers['retry-after']).toBeDefined();
    // The worker leaves it for its next cycle without failing.
    expect(await runDueDraws(ctx.database.db, ctx.clock)).toBe(0);

    // A block at the close itself does not count ("after"); the next one does, but needs a second
    // block on top of it (confirmations 2).
    await mineAt(close);
    await mineAt(close + 3);
    const unconfirmed = await ctx.admin('POST', `/admin/v1/draws/${draw.id}/run`);
    expect(unconfirmed.statusCode, unconfirmed.body).toBe(503);
    expect(unconfirmed.json().message).toMatch(/1 of its 2 confirmations/);
    await mineAt(close + 6);
    const ran = await ctx.admin('POST', `/admin/v1/draws/${draw.id}/run`);
    expect(ran.statusCode, ran.body).toBe(200);

    const published = (
      await ctx.app.inject({ method: 'GET', url: `/v1/draws/${draw.id}` })
    ).json<DrawAnswer>();
    expect(published.status).toBe('DRAWN');
    // The block is the first one whose timestamp is after the close, as the chain itself says.
    const block = await chain.client.getBlock({ blockNumber: BigInt(published.beacon.blockNumber ?? -1) });
    const before = await chain.client.getBlock({ blockNumber: block.number - 1n });
    expect(Number(block.timestamp)).toBe(close + 3);
    expect(Number(before.timestamp)).toBeLessThanOrEqual(close);
    expect(published.beacon.blockHash).toBe(block.hash.toLowerCase());

    // Anyone recomputes the winners, independently of the service's code.
    expect(sha256(published.seed as string)).toBe(draw.commitment);
    expect(published.tickets).toHaveLength(5);
    const score = (ticket: string) => sha256(`${published.seed}:${published.beacon.blockHash}:${ticket}`);
    const expected = [...(published.tickets as string[])]
      .sort((a, b) => (score(a) < score(b) ? -1 : 1))
      .slice(0, 2)
      .sort();
    expect(published.winners?.map((w) => w.ticketId).sort()).toEqual(expected);
    // The late ticket waits for the next draw.
    const received = (await ctx.admin('GET', '/admin/v1/tickets?filter=RECEIVED')).json().items as Array<{
      partnerUid: string;
    }>;
    expect(received.map((t) => t.partnerUid)).toEqual(['c-late']);
  });

  it('waits (503) while the chain does not answer, and then takes the same block as ever', async () => {
    const { draw, close } = await drawClosingIn(30, 1);
    await mineAt(close + 2);
    await mineAt(close + 4);
    await mineAt(close + 8);
    ctx.clock.set(new Date((close + 10) * 1000).toISOString());
    const network = ctx.database.db;
    await network
      .updateTable('chain_networks')
      .set({ rpc_url: `http://127.0.0.1:${await freePort()}` })
      .where('id', '=', networkId)
      .execute();
    const away = await ctx.admin('POST', `/admin/v1/draws/${draw.id}/run`);
    expect(away.statusCode, away.body).toBe(503);
    expect(away.json()).toMatchObject({ code: 3017, name: 'DRAW_CHAIN_UNAVAILABLE' });
    expect(away.json().message).toMatch(/ECONNREFUSED|no answer/);
    expect(await runDueDraws(ctx.database.db, ctx.clock)).toBe(0);
    expect((await ctx.admin('GET', `/admin/v1/draws/${draw.id}`)).json().status).toBe('COMMITTED');

    // Back: the run takes the first block after the close, not the newest.
    await network
      .updateTable('chain_networks')
      .set({ rpc_url: chain.rpcUrl })
      .where('id', '=', networkId)
      .execute();
    await mineAt(close + 12);
    expect(await runDueDraws(ctx.database.db, ctx.clock)).toBe(1);
    const published = (await ctx.admin('GET', `/admin/v1/draws/${draw.id}`)).json<DrawAnswer>();
    const block = await chain.client.getBlock({ blockNumber: BigInt(published.beacon.blockNumber ?? -1) });
    expect(Number(block.timestamp)).toBe(close + 2);
    expect(published.beacon.blockHash).toBe(block.hash.toLowerCase());
  });
});
