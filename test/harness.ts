// Test harness: each test file gets its own database (a fresh in-memory PGlite, or a fresh
// PostgreSQL database when DATABASE_URL is set), migrated, and an app on a manual clock.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import pg from 'pg';
import { inject } from 'vitest';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { loadConfig } from '../src/config.ts';
import type { Config } from '../src/config.ts';
import { openPGlite, openPostgres } from '../src/db/connection.ts';
import type { Database } from '../src/db/connection.ts';
import { migrate } from '../src/db/migrate.ts';
import { ManualClock } from '../src/domain/clock.ts';
import { buildApp } from '../src/app.ts';
import type { App } from '../src/http/server.ts';
import { ensureOwnerToken } from '../src/admins/service.ts';
import { SESSION_COOKIE } from '../src/http/session.ts';
import { startSession } from '../src/sessions/service.ts';
import type { PayoutProgress } from '../src/metrics/payout-progress.ts';
import { dropCitusDatabase, prepareCitusDatabase } from './citus/database.ts';
import { useStripesPerPartner } from '../src/db/citus.ts';

export const ADMIN_TOKEN = 'test-owner-token-0123456789';

/**
 * What the run's global setup provides (test/pglite-snapshot.ts): the migrated PGlite dump's path or
 * PostgreSQL template's name, if any (none outside Vitest: bench/webhooks-hot-path.ts uses this harness).
 */
function provided(key: 'pgliteSnapshot' | 'postgresTemplate'): string | undefined {
  try {
    return inject(key) || undefined;
  } catch {
    return undefined;
  }
}

/** A fresh, migrated database for one test file; `drop` removes it again. */
export async function createTestDatabase(): Promise<{
  database: Database;
  drop: () => Promise<void>;
  url?: string;
}> {
  const url = process.env.DATABASE_URL;
  if (url === undefined || url === '') {
    // From the run's migrated dump (test/pglite-snapshot.ts) where there is one.
    const snapshot = provided('pgliteSnapshot');
    const database = await openPGlite(undefined, {
      ...(snapshot && { loadDataDir: new Blob([readFileSync(snapshot)]) }),
    });
    await migrate(database);
    return { database, drop: () => database.close() };
  }
  const name = `mrs_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  const template = provided('postgresTemplate');
  await admin.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
  await admin.end();
  // On a Citus coordinator the database must also exist on every worker (test/citus/database.ts).
  const citus = await prepareCitusDatabase(url, name);
  const target = new URL(url);
  target.pathname = `/${name}`;
  const database = openPostgres(target.toString(), 20);
  await migrate(database);
  // As src/db/open.ts does for the service's processes: on Citus a partner's stripes.
  useStripesPerPartner(citus);
  return {
    database,
    url: target.toString(),
    drop: async () => {
      await database.close();
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
      if (citus) await dropCitusDatabase(url, name);
    },
  };
}

/**
 * Protections that a busy test machine trips by accident, kept out of the way of tests about other
 * behaviour: in-process PGlite start-up blocks the event loop for seconds (load shedding), one
 * inject address sends hundreds of login starts and failed keys per file (rate limits), and a
 * loaded machine can hold a batch past the queue deadline. The tests of those protections
 * (rate-limits.*, load-shedding, limits-config) set their own values, which win.
 */
export const OUT_OF_THE_WAY = {
  // The embedded dev chain only where a test asks for it (test/dev-chain-start.happy.test.ts).
  DEV_CHAIN: 'false',
  LOAD_SHED_MAX_EVENT_LOOP_DELAY_MS: '0',
  LOAD_SHED_MAX_LOOP_UTILIZATION: '0',
  RATE_LIMIT_PER_ADDRESS: '0',
  RATE_LIMIT_LOGIN_PER_ADDRESS: '0',
  RATE_LIMIT_LOGIN_PER_BROWSER: '0',
  RATE_LIMIT_FAILED_AUTH_PER_ADDRESS: '0',
  RATE_LIMIT_FAILED_AUTH_PER_PARTNER: '0',
  QUEUE_MAX_WAIT_MS: '30000',
};

export interface TestContext {
  app: App;
  database: Database;
  /** The PostgreSQL URL of this file's database; undefined on PGlite. */
  databaseUrl: string | undefined;
  clock: ManualClock;
  config: Config;
  /** JSON log lines the app wrote (when started with captureLogs). */
  logs: Array<Record<string, unknown>>;
  close(): Promise<void>;
  /** An operator call with the OWNER token (or the given bearer secret). */
  admin(
    method: InjectOptions['method'],
    url: string,
    body?: unknown,
    token?: string,
  ): Promise<LightMyRequestResponse>;
}

/** A log stream for an app's logger that parses each JSON line the app writes into `into`. */
export function jsonLogLines(into: Array<Record<string, unknown>>): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line.trim()) into.push(JSON.parse(line));
      done();
    },
  });
}

export async function startTestApp(
  options: {
    env?: Record<string, string>;
    now?: string;
    captureLogs?: boolean;
    /** The payout worker's progress, as src/main.ts passes it when the process runs the worker. */
    payoutProgress?: PayoutProgress;
  } = {},
): Promise<TestContext> {
  const { database, drop, url } = await createTestDatabase();
  const clock = new ManualClock(options.now ?? '2026-11-22T03:00:00Z');
  const config = loadConfig({ ADMIN_TOKEN, LOG_LEVEL: 'info', ...OUT_OF_THE_WAY, ...options.env });
  await ensureOwnerToken(database.db, ADMIN_TOKEN);
  const logs: Array<Record<string, unknown>> = [];
  const stream = jsonLogLines(logs);
  const app = await buildApp({
    config,
    database,
    clock,
    logger: options.captureLogs ? { level: 'info', stream } : false,
    ...(options.payoutProgress && { payoutProgress: options.payoutProgress }),
  });
  await app.ready();
  return {
    app,
    database,
    databaseUrl: url,
    clock,
    config,
    logs,
    async close() {
      await app.close();
      await drop();
    },
    admin(method, url, body, token = ADMIN_TOKEN) {
      return app.inject({
        method,
        url,
        headers: { authorization: `Bearer ${token}` },
        ...(body !== undefined && { payload: body as InjectOptions['payload'] }),
      });
    },
  };
}

export interface MissionSetup {
  partnerId: string;
  apiKey: string;
  promotionId: string;
  groupId: string;
  missionId: string;
  missionKey: string;
}

/** Creates a partner (allow-listing 127.0.0.1), an API key, an ACTIVE promotion, a group and a mission. */
export async function setupMission(
  ctx: TestContext,
  mission: { missionKey?: string; recurrence?: string; target?: number; timezone?: string } = {},
): Promise<MissionSetup> {
  const ok = <T>(response: LightMyRequestResponse, status = 201): T => {
    if (response.statusCode !== status)
      throw new Error(`setup failed: ${response.statusCode} ${response.body}`);
    return response.json<T>();
  };
  const partner = ok<{ id: string }>(
    await ctx.admin('POST', '/admin/v1/partners', { name: 'Test partner', allowedIps: ['127.0.0.1', '::1'] }),
  );
  const key = ok<{ apiKey: string }>(
    await ctx.admin('POST', `/admin/v1/partners/${partner.id}/api-keys`, {}),
  );
  const promotion = ok<{ id: string }>(
    await ctx.admin('POST', '/admin/v1/promotions', {
      partnerId: partner.id,
      type: 'COMPOSITE',
      title: 'Test promotion',
      timezone: mission.timezone ?? 'Asia/Seoul',
      startAt: '2026-01-01T00:00:00Z',
      status: 'ACTIVE',
    }),
  );
  const group = ok<{ id: string }>(
    await ctx.admin('POST', `/admin/v1/promotions/${promotion.id}/mission-groups`, { title: 'Group' }),
  );
  const missionKey = mission.missionKey ?? 'daily-login';
  const created = ok<{ id: string }>(
    await ctx.admin('POST', `/admin/v1/mission-groups/${group.id}/missions`, {
      missionKey,
      title: 'Log in',
      recurrence: mission.recurrence ?? 'DAILY',
      ...(mission.target !== undefined && { target: mission.target }),
    }),
  );
  return {
    partnerId: partner.id,
    apiKey: key.apiKey,
    promotionId: promotion.id,
    groupId: group.id,
    missionId: created.id,
    missionKey,
  };
}

/** Answers the body of a set-up call, or throws with the answer when it did not succeed. */
function created<T>(response: LightMyRequestResponse, status = 201): T {
  if (response.statusCode !== status)
    throw new Error(`setup failed: ${response.statusCode} ${response.body}`);
  return response.json<T>();
}

/** A reward asset; its id. */
export async function createAsset(
  ctx: TestContext,
  asset: { symbol: string; name: string; decimals: number },
): Promise<string> {
  return created<{ id: string }>(await ctx.admin('POST', '/admin/v1/reward-assets', asset)).id;
}

/** A budget of `total` (a decimal string) of the asset; its id. */
export async function createBudget(
  ctx: TestContext,
  assetId: string,
  total: string,
  options: { type?: 'FIXED' | 'LUCKY_DRAW'; name?: string; stripes?: number } = {},
): Promise<string> {
  const { type = 'FIXED', name = `budget ${total}`, stripes } = options;
  return created<{ id: string }>(
    await ctx.admin('POST', '/admin/v1/budgets', {
      type,
      assetId,
      name,
      total,
      ...(stripes !== undefined && { stripes }),
    }),
  ).id;
}

/** A ONE_TIME mission (setupMission) that pays `amount` from a new FIXED budget of `total`. */
export async function rewardedMission(
  ctx: TestContext,
  assetId: string,
  reward: { missionKey: string; total: string; amount: string; stripes?: number },
): Promise<MissionSetup & { budgetId: string }> {
  const setup = await setupMission(ctx, { missionKey: reward.missionKey, recurrence: 'ONE_TIME' });
  const budgetId = await createBudget(ctx, assetId, reward.total, {
    name: reward.missionKey,
    ...(reward.stripes !== undefined && { stripes: reward.stripes }),
  });
  created(
    await ctx.admin('PUT', `/admin/v1/missions/${setup.missionId}/reward`, {
      type: 'FIXED',
      budgetId,
      amount: reward.amount,
    }),
    200,
  );
  return { ...setup, budgetId };
}

/** A partner API call with the setup's credentials from an allow-listed address. */
export function partnerCall(
  ctx: TestContext,
  setup: Pick<MissionSetup, 'partnerId' | 'apiKey'>,
  options: {
    method: InjectOptions['method'];
    url: string;
    body?: unknown;
    remoteAddress?: string;
    headers?: Record<string, string>;
  },
): Promise<LightMyRequestResponse> {
  return ctx.app.inject({
    method: options.method,
    url: options.url,
    remoteAddress: options.remoteAddress ?? '127.0.0.1',
    headers: { 'x-partner-id': setup.partnerId, 'x-api-key': setup.apiKey, ...options.headers },
    ...(options.body !== undefined && { payload: options.body as InjectOptions['payload'] }),
  });
}

/**
 * A session cookie header for a platform account, as the login would set it: a new server-side
 * session (await it; each call starts another session of the account).
 */
export async function sessionCookie(
  ctx: Pick<TestContext, 'database' | 'clock' | 'config'>,
  accountId: string,
): Promise<string> {
  const session = await startSession(ctx.database.db, ctx.clock, accountId, ctx.config.sessionTtlSeconds);
  return `${SESSION_COOKIE}=${session.id}`;
}

/** Creates a platform account (and, when partnerUid is given, links it to that partner user). */
export async function createAccount(
  ctx: TestContext,
  options: {
    subject?: string;
    displayName?: string;
    link?: { partnerId: string; partnerUid: string; region?: string };
  } = {},
): Promise<string> {
  const id = `acc_${randomBytes(8).toString('hex')}`;
  await ctx.database.db
    .insertInto('platform_accounts')
    .values({ id, issuer: 'test', subject: options.subject ?? id, display_name: options.displayName ?? null })
    .execute();
  if (options.link) {
    await ctx.database.db
      .insertInto('user_mappings')
      .values({
        partner_id: options.link.partnerId,
        partner_uid: options.link.partnerUid,
        account_id: id,
        region: options.link.region ?? 'KR',
      })
      .execute();
  }
  return id;
}

/**
 * A second service process in all but name: its own pool and its own NOTIFY listener on the same
 * PostgreSQL database as `ctx` (PostgreSQL only).
 */
export async function startSecondApp(
  ctx: TestContext,
  config: Partial<Config> = {},
): Promise<{ app: App; close(): Promise<void> }> {
  if (!ctx.databaseUrl) throw new Error('a second app needs PostgreSQL');
  const database = openPostgres(ctx.databaseUrl, 5);
  const app = await buildApp({
    config: { ...ctx.config, ...config },
    database,
    clock: ctx.clock,
    logger: false,
  });
  await app.ready();
  return {
    app,
    async close() {
      await app.close();
      await database.close();
    },
  };
}
