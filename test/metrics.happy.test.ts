// /metrics scraped through HTTP as Prometheus would: the exposition follows the naming conventions,
// and the counters and gauges move with real requests (a completion moves the completion counter,
// the claims and the payout queue, and lowers its budget's gauge by the reward).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, partnerCall, setupMission, startTestApp } from './harness.ts';
import type { MissionSetup, TestContext } from './harness.ts';
import { parseExposition, sampleValue } from './metrics-text.ts';
import type { MetricFamily } from './metrics-text.ts';
import { runPayoutBatch } from '../src/payout/worker.ts';
import { PayoutProgress } from '../src/metrics/payout-progress.ts';

const TOKEN = 'metrics-token-0123456789';
/** prom-client's default process metrics name these gauges "_total"; ours never do that. */
const PROM_CLIENT_TOTAL_GAUGES = new Set([
  'nodejs_active_resources_total',
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
]);

let ctx: TestContext;
let setup: MissionSetup;

async function scrape(app = ctx.app): Promise<Map<string, MetricFamily>> {
  const response = await app.inject({
    method: 'GET',
    url: '/metrics',
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  expect(response.statusCode, response.body).toBe(200);
  expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseExposition(response.body);
}

beforeAll(async () => {
  ctx = await startTestApp({
    // As in a process that runs the payout worker (src/main.ts): its metrics are there too.
    payoutProgress: new PayoutProgress(),
    // No cache: each scrape reads the database afresh, so a test sees its own request's effect.
    env: { METRICS_TOKEN: TOKEN, METRICS_DB_CACHE_MS: '0', METRICS_MAX_PARTNER_LABELS: '1' },
  });
  setup = await setupMission(ctx, { missionKey: 'daily-login', recurrence: 'DAILY' });
});
afterAll(async () => {
  await ctx?.close();
});

describe('the exposition text', () => {
  it('names every metric by the Prometheus conventions, with HELP and TYPE', async () => {
    // Something of every kind first, so that labelled families have samples to check.
    await partnerCall(ctx, setup, { method: 'GET', url: '/v1/mission-users?partnerUid=nobody' });
    const families = await scrape();
    expect(families.size).toBeGreaterThan(30);
    const ours = [...families.values()].filter((f) => f.name.startsWith('mrs_'));
    expect(ours.length).toBeGreaterThan(20);
    for (const family of families.values()) {
      const { name, type } = family;
      expect(name, name).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(['counter', 'gauge', 'histogram', 'summary'], `${name} type`).toContain(type);
      expect(family.help.length, `${name} HELP`).toBeGreaterThan(0);
      // Counters end in _total; nothing else does (but for prom-client's own gauges of active handles).
      if (type === 'counter') expect(name, name).toMatch(/_total$/);
      else if (!PROM_CLIENT_TOTAL_GAUGES.has(name)) expect(name, name).not.toMatch(/_total$/);
      // Base units only: seconds and bytes, never milliseconds, microseconds or kilobytes.
      expect(name, name).not.toMatch(
        /_(ms|milliseconds|microseconds|us|kb|kilobytes|mb|megabytes|minutes|hours)(_|$)/,
      );
      // Our own metrics carry our prefix; the others are prom-client's standard process metrics.
      if (!name.startsWith('mrs_')) expect(name, name).toMatch(/^(process|nodejs)_/);
      if (type === 'histogram') {
        const buckets = family.samples.filter((s) => s.name === `${name}_bucket`);
        if (family.samples.length > 0)
          expect(
            buckets.some((s) => s.labels.le === '+Inf'),
            name,
          ).toBe(true);
      }
      // Label names are snake_case too, and never a raw URL.
      for (const sample of family.samples) {
        for (const label of Object.keys(sample.labels))
          expect(label, `${name} label`).toMatch(/^[a-z_][a-z0-9_]*$/);
      }
    }
    // Durations and sizes carry their unit.
    expect(families.get('mrs_http_request_duration_seconds')?.type).toBe('histogram');
    expect(families.get('process_resident_memory_bytes')?.type).toBe('gauge');
    expect(families.get('process_cpu_seconds_total')?.type).toBe('counter');
  });
});

describe('counters that move with real requests', () => {
  it('a completion of a FIXED reward moves the completion counter, the claims and the payout queue, and lowers the budget gauge by the reward', async () => {
    const asset = (
      await ctx.admin('POST', '/admin/v1/reward-assets', { symbol: 'PNT', name: 'Points', decimals: 2 })
    ).json<{ id: string }>().id;
    const budget = await ctx.admin('POST', '/admin/v1/budgets', {
      type: 'FIXED',
      assetId: asset,
      name: 'Metrics budget',
      total: '100',
    });
    expect(budget.statusCode, budget.body).toBe(201);
    const budgetId = budget.json<{ id: string }>().id;
    const rule = await ctx.admin('PUT', `/admin/v1/missions/${setup.missionId}/reward`, {
      type: 'FIXED',
      budgetId,
      amount: '12.5',
    });
    expect(rule.statusCode, rule.body).toBe(200);
    await createAccount(ctx, { link: { partnerId: setup.partnerId, partnerUid: 'metrics-user' } });

    const before = await scrape();
    const budgetLabels = { budget: budgetId, asset: 'PNT' };
    expect(sampleValue(before, 'mrs_budget_remaining', budgetLabels)).toBe(100);
    expect(sampleValue(before, 'mrs_budget_capacity', budgetLabels)).toBe(100);
    const completionsBefore = sampleValue(before, 'mrs_completions_total', { partner: setup.partnerId }) ?? 0;
    const claimsBefore = sampleValue(before, 'mrs_claims') ?? 0;
    const achieveBefore =
      sampleValue(before, 'mrs_http_requests_total', {
        route: '/v1/achieve',
        method: 'POST',
        status: '200',
        partner: setup.partnerId,
      }) ?? 0;

    const answer = await partnerCall(ctx, setup, {
      method: 'POST',
      url: '/v1/achieve',
      body: { partnerUid: 'metrics-user', missionKey: 'daily-login', completed: true },
    });
    expect(answer.statusCode, answer.body).toBe(200);

    const after = await scrape();
    expect(sampleValue(after, 'mrs_completions_total', { partner: setup.partnerId })).toBe(
      completionsBefore + 1,
    );
    expect(sampleValue(after, 'mrs_claims')).toBe(claimsBefore + 1);
    expect(sampleValue(after, 'mrs_claims', { status: 'REQUESTED' })).toBe(1);
    expect(sampleValue(after, 'mrs_budget_remaining', budgetLabels)).toBe(87.5);
    expect(sampleValue(after, 'mrs_budget_owed', budgetLabels)).toBe(12.5);
    expect(sampleValue(after, 'mrs_payout_queue_depth')).toBe(1);
    expect(
      sampleValue(after, 'mrs_http_requests_total', {
        route: '/v1/achieve',
        method: 'POST',
        status: '200',
        partner: setup.partnerId,
      }),
    ).toBe(achieveBefore + 1);
    expect(
      sampleValue(after, 'mrs_http_request_duration_seconds_count', { route: '/v1/achieve', method: 'POST' }),
    ).toBeGreaterThanOrEqual(1);
    // The report went through a batching queue, whose connection came from the pool.
    expect(sampleValue(after, 'mrs_coalescer_batch_size_count')).toBeGreaterThanOrEqual(1);
    expect(sampleValue(after, 'mrs_db_pool_acquire_wait_seconds_count')).toBeGreaterThan(0);
    expect(sampleValue(after, 'mrs_db_pool_connections_max')).toBeGreaterThanOrEqual(1);

    // The payout pays it: out of the queue, SUCCEEDED, nothing owed; the budget stays spent.
    expect(await runPayoutBatch(ctx.database.db, ctx.clock)).toBe(1);
    const paid = await scrape();
    expect(sampleValue(paid, 'mrs_payout_queue_depth')).toBe(0);
    expect(sampleValue(paid, 'mrs_payout_oldest_requested_age_seconds')).toBe(0);
    expect(sampleValue(paid, 'mrs_claims', { status: 'SUCCEEDED' })).toBe(1);
    expect(sampleValue(paid, 'mrs_claims', { status: 'REQUESTED' })).toBe(0);
    expect(sampleValue(paid, 'mrs_budget_owed', budgetLabels)).toBe(0);
    expect(sampleValue(paid, 'mrs_budget_remaining', budgetLabels)).toBe(87.5);
    expect(sampleValue(paid, 'mrs_metrics_database_reading_success')).toBe(1);
  });

  it("counts a budget's RESERVED claims as owed, as the budget's own `reserved` does (OWED_CLAIM_STATUSES)", async () => {
    const asset = (
      await ctx.admin('POST', '/admin/v1/reward-assets', { symbol: 'OWE', name: 'Owed', decimals: 0 })
    ).json<{ id: string }>().id;
    const budget = await ctx.admin('POST', '/admin/v1/budgets', {
      type: 'FIXED',
      assetId: asset,
      name: 'Owed budget',
      total: '50',
    });
    expect(budget.statusCode, budget.body).toBe(201);
    const budgetId = budget.json<{ id: string }>().id;
    const now = ctx.clock.now();
    const claim = (id: string, status: 'RESERVED' | 'FAILED' | 'SUCCEEDED', amount: string) => ({
      id,
      budget_id: budgetId,
      asset_id: asset,
      partner_id: setup.partnerId,
      partner_uid: `owed-${id}`,
      account_id: null,
      promotion_id: null,
      source: 'MISSION' as const,
      source_id: setup.missionId,
      period_key: 'owed',
      amount,
      status,
      reason: null,
      next_attempt_at: null,
      created_at: now,
      updated_at: now,
      completed_before_link: null,
      trace_context: null,
    });
    // Written directly: a RESERVED claim (a legacy one waiting for its link), a FAILED and a paid one.
    await ctx.database.db
      .insertInto('claims')
      .values([
        claim('clm_owed_r', 'RESERVED', '3'),
        claim('clm_owed_f', 'FAILED', '4'),
        claim('clm_owed_s', 'SUCCEEDED', '5'),
      ])
      .execute();
    const families = await scrape();
    expect(sampleValue(families, 'mrs_budget_owed', { budget: budgetId, asset: 'OWE' })).toBe(7);
    const view = await ctx.admin('GET', `/admin/v1/budgets/${budgetId}`);
    expect(view.statusCode, view.body).toBe(200);
    expect(view.json()).toMatchObject({ reserved: '7', paid: '5' });
  });

  it('labels requests by route template, never by the raw URL, and unknown paths as unmatched', async () => {
    const probe = 'probe-0f3a9c';
    expect((await ctx.admin('GET', `/admin/v1/partners/${probe}`)).statusCode).toBe(404);
    expect((await ctx.app.inject({ method: 'GET', url: `/no/such/${probe}` })).statusCode).toBe(404);
    const response = await ctx.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(response.body).not.toContain(probe);
    const families = parseExposition(response.body);
    expect(
      sampleValue(families, 'mrs_http_requests_total', {
        route: '/admin/v1/partners/:partnerId',
        status: '404',
      }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sampleValue(families, 'mrs_http_requests_total', { route: 'unmatched', status: '404' }),
    ).toBeGreaterThanOrEqual(1);
  });

  it('caps the distinct partner labels: partners beyond the cap are counted as "other"', async () => {
    // This app allows one partner label (METRICS_MAX_PARTNER_LABELS=1), taken by the first partner.
    const second = await setupMission(ctx, { missionKey: 'second-partner-mission' });
    const call = await partnerCall(ctx, second, { method: 'GET', url: '/v1/mission-users?partnerUid=x' });
    expect(call.statusCode).toBe(200);
    const families = await scrape();
    const partners = new Set(
      families.get('mrs_http_requests_total')?.samples.map((s) => s.labels.partner as string),
    );
    expect(partners.has(setup.partnerId)).toBe(true);
    expect(partners.has(second.partnerId)).toBe(false);
    expect(partners.has('other')).toBe(true);
    // Routes without partner credentials carry no partner.
    expect(
      sampleValue(families, 'mrs_http_requests_total', { route: '/admin/v1/partners', partner: 'none' }),
    ).toBeGreaterThan(0);
  });

  it('each app has a registry of its own: another app does not see these counters', async () => {
    const other = await startTestApp({ env: { METRICS_TOKEN: TOKEN } });
    try {
      const families = await scrape(other.app);
      expect(sampleValue(families, 'mrs_http_requests_total', { route: '/v1/achieve' })).toBeUndefined();
      expect(sampleValue(families, 'mrs_completions_total')).toBeUndefined();
      // ... while this app's still counts its own.
      expect(
        sampleValue(await scrape(), 'mrs_http_requests_total', { route: '/v1/achieve' }),
      ).toBeGreaterThan(0);
    } finally {
      await other.close();
    }
  }, 90_000);
});

describe('the Grafana dashboard (ops/grafana/mission-reward-service.json)', () => {
  interface Panel {
    type: string;
    title: string;
    datasource?: { uid: string };
    targets?: Array<{ expr: string; datasource?: { uid: string } }>;
  }
  const dashboard = JSON.parse(
    readFileSync(new URL('../ops/grafana/mission-reward-service.json', import.meta.url), 'utf8'),
  ) as { templating: { list: Array<{ name: string; type: string; query: unknown }> }; panels: Panel[] };

  it('has a Prometheus datasource variable that every query uses', () => {
    expect(dashboard.templating.list).toContainEqual(
      expect.objectContaining({ name: 'datasource', type: 'datasource', query: 'prometheus' }),
    );
    const queried = dashboard.panels.filter((p) => p.type !== 'row');
    expect(queried.length).toBeGreaterThan(20);
    for (const panel of queried) {
      expect(panel.datasource?.uid, panel.title).toBe('${datasource}');
      expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
      for (const target of panel.targets ?? [])
        expect(target.datasource?.uid, panel.title).toBe('${datasource}');
    }
  });

  it('queries only metrics the service exposes', async () => {
    const families = await scrape();
    const exposed = (name: string) =>
      families.has(name) ||
      ['_bucket', '_sum', '_count'].some(
        (suffix) =>
          name.endsWith(suffix) && families.get(name.slice(0, -suffix.length))?.type === 'histogram',
      );
    const used = new Set<string>();
    for (const panel of dashboard.panels)
      for (const target of panel.targets ?? [])
        for (const [name] of target.expr.matchAll(/\b(?:mrs|process|nodejs)_[a-z0-9_]+\b/g)) used.add(name);
    expect(used.size).toBeGreaterThan(25);
    const missing = [...used].filter((name) => !exposed(name));
    expect(missing).toEqual([]);
    // And the other way round: every metric of ours is on the dashboard.
    const ours = [...families.keys()].filter((name) => name.startsWith('mrs_'));
    const shown = (name: string) =>
      used.has(name) || ['_bucket', '_sum', '_count'].some((suffix) => used.has(name + suffix));
    expect(ours.filter((name) => !shown(name))).toEqual([]);
  });
});
