// The demo campaign (#29 "the first hour"): through the operator API, a ready token campaign on the
// development chain: a partner with an API key whose redirect is examples/partner-server's, a
// funded budget of the dev token with its reward wallet, an ACTIVE promotion with two missions
// paying tokens, and a webhook endpoint for the example server. Only operator API calls, so it runs
// against any running service (the CLI, src/demo/cli.ts) and in tests (through inject).

import { DEV_ASSET_ID } from '../chain/dev-network-store.ts';

/** One operator API call: its status and parsed body. */
export type OperatorCall = (
  method: 'GET' | 'POST' | 'PUT',
  url: string,
  body?: unknown,
) => Promise<{
  status: number;
  body: unknown;
}>;

export interface DemoOptions {
  /** Where examples/partner-server listens (its PUBLIC_URL). */
  partnerServerUrl: string;
  /** The asset paid: the dev chain's token (registered by `npm start`) by default, or a ledger asset. */
  assetId?: string;
  /** Tokens the dev faucet puts in the reward wallet, and the budget's total (whole units). */
  total?: string;
}

export interface DemoCampaign {
  partnerId: string;
  apiKey: string;
  webhookSecret: string;
  budgetId: string;
  promotionId: string;
  missionKeys: string[];
  /** The budget's reward wallet on the chain; null for an asset kept in the ledger. */
  rewardWalletAddress: string | null;
}

async function ok<T>(
  call: OperatorCall,
  method: 'GET' | 'POST' | 'PUT',
  url: string,
  body?: unknown,
): Promise<T> {
  const answer = await call(method, url, body);
  if (answer.status < 200 || answer.status > 299)
    throw new Error(`demo: ${method} ${url} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body as T;
}

export async function seedDemo(call: OperatorCall, options: DemoOptions): Promise<DemoCampaign> {
  const assetId = options.assetId ?? DEV_ASSET_ID;
  const total = options.total ?? '1000';
  const base = options.partnerServerUrl.replace(/\/+$/, '');
  const partner = await ok<{ id: string }>(call, 'POST', '/admin/v1/partners', {
    name: 'Demo partner',
    allowedIps: ['127.0.0.1', '::1'],
    redirectUrls: [`${base}/linked`],
  });
  const key = await ok<{ apiKey: string }>(call, 'POST', `/admin/v1/partners/${partner.id}/api-keys`, {});
  const budget = await ok<{ id: string }>(call, 'POST', '/admin/v1/budgets', {
    type: 'FIXED',
    assetId,
    name: 'Demo tokens',
    total,
  });
  // A chain asset (the dev token): the budget's reward wallet, funded by the dev faucet. An asset in
  // the ledger (points) has no wallet: the budget's total is all it needs (3603 NOT_A_CHAIN_BUDGET).
  const created = await call('POST', `/admin/v1/budgets/${budget.id}/reward-wallet`, {});
  const onChain = !(created.status === 409 && (created.body as { code?: number } | null)?.code === 3603);
  let rewardWalletAddress: string | null = null;
  if (onChain) {
    if (created.status !== 201)
      throw new Error(
        `demo: POST /admin/v1/budgets/${budget.id}/reward-wallet answered ${created.status}: ${JSON.stringify(created.body)}`,
      );
    rewardWalletAddress = (created.body as { address: string }).address;
    await ok(call, 'POST', `/admin/v1/budgets/${budget.id}/reward-wallet/dev-faucet`, { amount: total });
  }
  const promotion = await ok<{ id: string }>(call, 'POST', '/admin/v1/promotions', {
    partnerId: partner.id,
    type: 'COMPOSITE',
    title: 'Demo campaign',
    timezone: 'UTC',
    startAt: '2026-01-01T00:00:00Z',
    status: 'ACTIVE',
  });
  const group = await ok<{ id: string }>(
    call,
    'POST',
    `/admin/v1/promotions/${promotion.id}/mission-groups`,
    {
      title: 'Get started',
    },
  );
  const missions = [
    { missionKey: 'daily-login', title: 'Log in today', recurrence: 'DAILY', amount: '2.5' },
    { missionKey: 'play-3-games', title: 'Play 3 games', recurrence: 'ONE_TIME', target: 3, amount: '10' },
  ];
  for (const { amount, ...mission } of missions) {
    const created = await ok<{ id: string }>(
      call,
      'POST',
      `/admin/v1/mission-groups/${group.id}/missions`,
      mission,
    );
    await ok(call, 'PUT', `/admin/v1/missions/${created.id}/reward`, {
      type: 'FIXED',
      budgetId: budget.id,
      amount,
    });
  }
  const endpoint = await ok<{ secret: string }>(
    call,
    'POST',
    `/admin/v1/partners/${partner.id}/webhook-endpoints`,
    {
      url: `${base}/webhooks`,
      events: ['claim.succeeded', 'claim.failed'],
      description: 'examples/partner-server',
    },
  );
  return {
    partnerId: partner.id,
    apiKey: key.apiKey,
    webhookSecret: endpoint.secret,
    budgetId: budget.id,
    promotionId: promotion.id,
    missionKeys: missions.map((m) => m.missionKey),
    rewardWalletAddress,
  };
}

/** The command that starts examples/partner-server against this campaign (its key and secret inside). */
export function partnerServerCommand(
  serviceUrl: string,
  partnerServerUrl: string,
  demo: DemoCampaign,
): string {
  const host = new URL(partnerServerUrl);
  return `MRS_BASE_URL=${serviceUrl} MRS_PARTNER_ID=${demo.partnerId} MRS_API_KEY=${demo.apiKey} \\
MRS_WEBHOOK_SECRET='${demo.webhookSecret}' PORT=${host.port || '80'} PUBLIC_URL=${partnerServerUrl} \\
npx tsx examples/partner-server/server.ts`;
}
