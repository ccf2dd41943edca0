// Every mutating operator route of the OpenAPI document leaves an audit row when it succeeds. The
// routes come from app.swagger(), not from a list kept here: a route added later without a case
// below fails this test, and one whose write escapes the operator transaction fails it too.
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, setupMission, startTestApp } from './harness.ts';
import type { MissionSetup, TestContext } from './harness.ts';
import { linkUsers } from './link-users.ts';

let ctx: TestContext;
let setup: MissionSetup;
let rpc: Server;
let rpcUrl: string;
const CHAIN_ID = 31337;

// Answers eth_chainId like a node of CHAIN_ID would (network registration checks it); no more.
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

let sequence = 0;
/** An operator call with its own request id, so that its audit rows can be told apart. */
async function call(method: string, url: string, body?: unknown) {
  const requestId = `audit-case-${++sequence}`;
  const response = await ctx.app.inject({
    method: method as 'POST',
    url,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-request-id': requestId },
    ...(body !== undefined && { payload: body as object }),
  });
  return { response, requestId };
}

async function created(url: string, body: unknown): Promise<string> {
  const { response } = await call('POST', url, body);
  if (response.statusCode !== 201) throw new Error(`set-up ${url}: ${response.statusCode} ${response.body}`);
  return response.json<{ id: string }>().id;
}

const fixtures = {
  assetId: '',
  fixedBudget: '',
  drawBudget: '',
  dailyPromotion: '',
  chainNetwork: '',
  chainBudget: '',
};

beforeAll(async () => {
  rpc = await startFakeRpc();
  rpcUrl = `http://127.0.0.1:${(rpc.address() as AddressInfo).port}/`;
  ctx = await startTestApp({ env: { WALLET_KEK: 'ab'.repeat(32), WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true' } });
  setup = await setupMission(ctx);
  fixtures.assetId = await created('/admin/v1/reward-assets', { symbol: 'P', name: 'Points', decimals: 0 });
  const budget = (type: string) => ({ type, assetId: fixtures.assetId, name: type, total: '1000' });
  fixtures.fixedBudget = await created('/admin/v1/budgets', budget('FIXED'));
  fixtures.drawBudget = await created('/admin/v1/budgets', budget('LUCKY_DRAW'));
  fixtures.dailyPromotion = await created('/admin/v1/promotions', {
    partnerId: setup.partnerId,
    type: 'DAILY_CHECK',
    title: 'Daily',
    timezone: 'UTC',
    startAt: '2026-01-01T00:00:00Z',
  });
  fixtures.chainNetwork = await created('/admin/v1/chain-networks', {
    name: 'fake',
    chainId: CHAIN_ID,
    rpcUrl,
  });
  const chainAsset = await created('/admin/v1/chain-assets', {
    networkId: fixtures.chainNetwork,
    symbol: 'ETH',
    name: 'Ether',
  });
  fixtures.chainBudget = await created('/admin/v1/budgets', {
    type: 'FIXED',
    assetId: chainAsset,
    name: 'on chain',
    total: '1',
  });
}, 120_000);
afterAll(async () => {
  await ctx?.close();
  await new Promise((resolve) => rpc?.close(resolve));
});

/** A claim in the given state, as the completion path and the payout worker would leave it. */
async function claimIn(status: 'RESERVED' | 'FAILED'): Promise<string> {
  const id = `clm_audit_${status}_${sequence}`;
  const now = ctx.clock.now();
  // A FAILED claim was requested, which only a linked user's claim can be.
  const [accountId] = status === 'FAILED' ? await linkUsers(ctx, setup.partnerId, [`u-${id}`]) : [null];
  await ctx.database.db
    .insertInto('claims')
    .values({
      id,
      budget_id: fixtures.fixedBudget,
      asset_id: fixtures.assetId,
      partner_id: setup.partnerId,
      partner_uid: `u-${id}`,
      account_id: accountId ?? null,
      promotion_id: setup.promotionId,
      source: 'MISSION',
      source_id: setup.missionId,
      period_key: 'ONCE',
      amount: 1n,
      status,
      created_at: now,
      updated_at: now,
    })
    .execute();
  await ctx.database.db
    .insertInto('claim_events')
    .values({
      partner_id: setup.partnerId,
      claim_id: id,
      from_status: null,
      to_status: status,
      reason: null,
      at: now,
    })
    .execute();
  return id;
}

async function webhookEndpoint(): Promise<string> {
  return created(`/admin/v1/partners/${setup.partnerId}/webhook-endpoints`, {
    url: 'http://127.0.0.1:9/hook',
    events: ['user.linked'],
  });
}

type Case = () => Promise<{ url: string; body?: unknown }>;

/** How to call each mutating route successfully, keyed as in the OpenAPI document. */
const cases: Record<string, Case> = {
  'POST /admin/v1/admin-credentials': async () => ({
    url: '/admin/v1/admin-credentials',
    body: { name: 'ops', role: 'OPERATOR' },
  }),
  'DELETE /admin/v1/admin-credentials/{credentialId}': async () => ({
    url: `/admin/v1/admin-credentials/${await created('/admin/v1/admin-credentials', { name: 'gone', role: 'VIEWER' })}`,
  }),
  'POST /admin/v1/partners': async () => ({ url: '/admin/v1/partners', body: { name: 'Another' } }),
  'PATCH /admin/v1/partners/{partnerId}': async () => ({
    url: `/admin/v1/partners/${setup.partnerId}`,
    body: { redirectUrls: ['https://partner.example/linked'] },
  }),
  'POST /admin/v1/partners/{partnerId}/api-keys': async () => ({
    url: `/admin/v1/partners/${setup.partnerId}/api-keys`,
    body: { name: 'second' },
  }),
  'DELETE /admin/v1/partners/{partnerId}/api-keys/{keyId}': async () => ({
    url: `/admin/v1/partners/${setup.partnerId}/api-keys/${await created(`/admin/v1/partners/${setup.partnerId}/api-keys`, {})}`,
  }),
  'DELETE /admin/v1/partners/{partnerId}/users/{partnerUid}/mapping': async () => {
    await linkUsers(ctx, setup.partnerId, ['to-unlink']);
    return { url: `/admin/v1/partners/${setup.partnerId}/users/to-unlink/mapping` };
  },
  'POST /admin/v1/promotions': async () => ({
    url: '/admin/v1/promotions',
    body: {
      partnerId: setup.partnerId,
      type: 'COMPOSITE',
      title: 'More',
      timezone: 'UTC',
      startAt: '2026-01-01T00:00:00Z',
    },
  }),
  'PATCH /admin/v1/promotions/{promotionId}': async () => ({
    url: `/admin/v1/promotions/${setup.promotionId}`,
    body: { title: 'Renamed promotion' },
  }),
  'POST /admin/v1/promotions/{promotionId}/mission-groups': async () => ({
    url: `/admin/v1/promotions/${setup.promotionId}/mission-groups`,
    body: { title: 'Second group' },
  }),
  'PATCH /admin/v1/mission-groups/{groupId}': async () => ({
    url: `/admin/v1/mission-groups/${setup.groupId}`,
    body: { title: 'Renamed group' },
  }),
  'POST /admin/v1/mission-groups/{groupId}/missions': async () => ({
    url: `/admin/v1/mission-groups/${setup.groupId}/missions`,
    body: { missionKey: 'second', title: 'Second', recurrence: 'ONE_TIME' },
  }),
  'PATCH /admin/v1/missions/{missionId}': async () => ({
    url: `/admin/v1/missions/${setup.missionId}`,
    body: { title: 'Renamed mission' },
  }),
  'POST /admin/v1/reward-assets': async () => ({
    url: '/admin/v1/reward-assets',
    body: { symbol: 'Q', name: 'Other', decimals: 2 },
  }),
  'PATCH /admin/v1/reward-assets/{id}': async () => ({
    url: `/admin/v1/reward-assets/${fixtures.assetId}`,
    body: { name: 'Points (renamed)' },
  }),
  'POST /admin/v1/budgets': async () => ({
    url: '/admin/v1/budgets',
    body: { type: 'FIXED', assetId: fixtures.assetId, name: 'more', total: '5' },
  }),
  'POST /admin/v1/budgets/{id}/top-up': async () => ({
    url: `/admin/v1/budgets/${fixtures.fixedBudget}/top-up`,
    body: { amount: '7' },
  }),
  'PUT /admin/v1/budgets/{id}/caps': async () => ({
    url: `/admin/v1/budgets/${fixtures.fixedBudget}/caps`,
    body: { perAccountPerDay: '5', perPartnerPerDay: null },
  }),
  'PUT /admin/v1/missions/{id}/reward': async () => ({
    url: `/admin/v1/missions/${setup.missionId}/reward`,
    body: { type: 'FIXED', budgetId: fixtures.fixedBudget, amount: '1' },
  }),
  'DELETE /admin/v1/missions/{id}/reward': async () => {
    await call('PUT', `/admin/v1/missions/${setup.missionId}/reward`, {
      type: 'FIXED',
      budgetId: fixtures.fixedBudget,
      amount: '1',
    });
    return { url: `/admin/v1/missions/${setup.missionId}/reward` };
  },
  'PUT /admin/v1/mission-groups/{id}/reward': async () => ({
    url: `/admin/v1/mission-groups/${setup.groupId}/reward`,
    body: { type: 'LUCKY_DRAW', budgetId: fixtures.drawBudget },
  }),
  'DELETE /admin/v1/mission-groups/{id}/reward': async () => {
    await call('PUT', `/admin/v1/mission-groups/${setup.groupId}/reward`, {
      type: 'LUCKY_DRAW',
      budgetId: fixtures.drawBudget,
    });
    return { url: `/admin/v1/mission-groups/${setup.groupId}/reward` };
  },
  'PUT /admin/v1/promotions/{id}/streak-rewards': async () => ({
    url: `/admin/v1/promotions/${fixtures.dailyPromotion}/streak-rewards`,
    body: { items: [{ days: 3, budgetId: fixtures.fixedBudget, amount: '2' }] },
  }),
  'POST /admin/v1/claims/{id}/reject': async () => ({
    url: `/admin/v1/claims/${await claimIn('RESERVED')}/reject`,
    body: { reason: 'fraud' },
  }),
  'POST /admin/v1/claims/{id}/retry': async () => ({
    url: `/admin/v1/claims/${await claimIn('FAILED')}/retry`,
  }),
  'POST /admin/v1/draws': async () => ({
    url: '/admin/v1/draws',
    body: {
      budgetId: fixtures.drawBudget,
      title: 'Draw',
      prizeAmount: '1',
      winnersCount: 1,
      scheduledAt: '2026-12-01T00:00:00Z',
    },
  }),
  'POST /admin/v1/draws/{id}/run': async () => ({
    url: `/admin/v1/draws/${await created('/admin/v1/draws', {
      budgetId: fixtures.drawBudget,
      title: 'Run now',
      prizeAmount: '1',
      winnersCount: 1,
      // Its tickets close now (a close in the past is refused, 3014): it may run at once.
      scheduledAt: ctx.clock.now().toISOString(),
    })}/run`,
  }),
  'PATCH /admin/v1/draws/{id}': async () => ({
    url: `/admin/v1/draws/${await created('/admin/v1/draws', {
      budgetId: fixtures.drawBudget,
      title: 'Retitled',
      prizeAmount: '1',
      winnersCount: 1,
      scheduledAt: '2026-12-02T00:00:00Z',
    })}`,
    body: { titles: { ko: '추첨' } },
  }),
  'POST /admin/v1/chain-networks': async () => ({
    url: '/admin/v1/chain-networks',
    body: { name: 'second', chainId: CHAIN_ID, rpcUrl },
  }),
  'PATCH /admin/v1/chain-networks/{id}': async () => ({
    url: `/admin/v1/chain-networks/${await created('/admin/v1/chain-networks', { name: `steered-${sequence}`, chainId: CHAIN_ID, rpcUrl })}`,
    body: { confirmations: 3, enabled: false },
  }),
  'DELETE /admin/v1/chain-networks/{id}': async () => ({
    url: `/admin/v1/chain-networks/${await created('/admin/v1/chain-networks', { name: `unused-${sequence}`, chainId: CHAIN_ID, rpcUrl })}`,
  }),
  'POST /admin/v1/reward-wallets/{id}/recover': async () => {
    // A wallet halted as the payout halts one after a reorg deeper than its confirmations.
    const assetId = await created('/admin/v1/chain-assets', {
      networkId: fixtures.chainNetwork,
      symbol: `R${sequence}`,
      name: 'Recovered',
    });
    const budgetId = await created('/admin/v1/budgets', {
      type: 'FIXED',
      assetId,
      name: 'halted',
      total: '1',
    });
    const walletId = await created(`/admin/v1/budgets/${budgetId}/reward-wallet`, {});
    await ctx.database.db
      .updateTable('reward_wallets')
      .set({ halted_at: ctx.clock.now(), halted_reason: 'test: a reorg removed a confirmed transfer' })
      .where('id', '=', walletId)
      .execute();
    return { url: `/admin/v1/reward-wallets/${walletId}/recover` };
  },
  'POST /admin/v1/chain-assets': async () => ({
    url: '/admin/v1/chain-assets',
    body: { networkId: fixtures.chainNetwork, symbol: 'ETH2', name: 'Ether again' },
  }),
  'POST /admin/v1/budgets/{id}/reward-wallet': async () => ({
    url: `/admin/v1/budgets/${fixtures.chainBudget}/reward-wallet`,
    body: {},
  }),
  'POST /admin/v1/partners/{partnerId}/webhook-endpoints': async () => ({
    url: `/admin/v1/partners/${setup.partnerId}/webhook-endpoints`,
    body: { url: 'http://127.0.0.1:9/other', events: ['claim.reserved'] },
  }),
  'PATCH /admin/v1/webhook-endpoints/{id}': async () => ({
    url: `/admin/v1/webhook-endpoints/${await webhookEndpoint()}`,
    body: { description: 'changed' },
  }),
  'POST /admin/v1/webhook-endpoints/{id}/roll-secret': async () => ({
    url: `/admin/v1/webhook-endpoints/${await webhookEndpoint()}/roll-secret`,
  }),
  'POST /admin/v1/webhook-messages/{id}/resend': async () => {
    const endpointId = await webhookEndpoint();
    const id = `msg_audit_${sequence}`;
    await ctx.database.db
      .insertInto('webhook_messages')
      .values({
        id,
        endpoint_id: endpointId,
        partner_id: setup.partnerId,
        event_type: 'user.linked',
        rank: 0,
        payload: JSON.stringify({ type: 'user.linked', timestamp: ctx.clock.now().toISOString(), data: {} }),
        status: 'FAILED',
        attempts: 3,
        next_attempt_at: ctx.clock.now(),
        created_at: ctx.clock.now(),
      })
      .execute();
    return { url: `/admin/v1/webhook-messages/${id}/resend` };
  },
  // The demo campaign with the ledger asset (no dev chain here): its steps' rows carry this request's id.
  'POST /admin/v1/demo': async () => ({
    url: '/admin/v1/demo',
    body: {
      assetId: await created('/admin/v1/reward-assets', { symbol: 'DP', name: 'Demo points', decimals: 2 }),
    },
  }),
};

const MUTATING = ['post', 'put', 'patch', 'delete'];
/**
 * Under /admin/v1 but made by no operator: the development first sign-in exchanges the one-time
 * code printed at start-up for the first OWNER credential, before any credential exists (and is
 * refused once one does, as here). test/first-sign-in.security.test.ts proves it.
 */
const NOT_OPERATOR_WRITES = new Set(['POST /admin/v1/first-sign-in']);

describe('the audit log covers every operator write', () => {
  it('every mutating /admin/v1 route of the OpenAPI document leaves a row with its request id', async () => {
    const paths = (ctx.app.swagger() as { paths: Record<string, Record<string, unknown>> }).paths;
    const routes = Object.entries(paths)
      .filter(([path]) => path.startsWith('/admin/v1/'))
      .flatMap(([path, operations]) =>
        Object.keys(operations)
          .filter((method) => MUTATING.includes(method))
          .map((method) => `${method.toUpperCase()} ${path}`),
      );
    // Sanity: the walk found the operator writes (a broken walk would prove nothing).
    expect(routes.length).toBeGreaterThan(25);
    const missing = routes.filter((route) => cases[route] === undefined && !NOT_OPERATOR_WRITES.has(route));
    expect(missing, 'mutating routes without a case here (add one: their audit rows must be proved)').toEqual(
      [],
    );
    const unaudited: string[] = [];
    for (const route of routes.filter((route) => !NOT_OPERATOR_WRITES.has(route))) {
      const method = route.slice(0, route.indexOf(' '));
      const { url, body } = await (cases[route] as Case)();
      const { response, requestId } = await call(method, url, body);
      expect(response.statusCode, `${route}: ${response.body}`).toBeLessThan(300);
      const rows = await ctx.database.db
        .selectFrom('audit_events')
        .selectAll()
        .where('request_id', '=', requestId)
        .execute();
      if (rows.length === 0) unaudited.push(route);
      for (const row of rows) expect(row.actor_name, route).toBe('ADMIN_TOKEN');
    }
    expect(unaudited).toEqual([]);
  }, 180_000);
});
