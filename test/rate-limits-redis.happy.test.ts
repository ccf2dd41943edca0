// With REDIS_URL the rate-limit counters live in Redis (CI runs one on 127.0.0.1:6379): two app
// instances share them, a 429 keeps the error body and Retry-After, and Redis expires them itself.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import type { App } from '../src/http/server.ts';
import { jsonLogLines, startTestApp } from './harness.ts';
import type { TestContext } from './harness.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
// A prefix of this run only, so that parallel runs on one Redis never count each other.
const PREFIX = `mrs-test-${randomBytes(6).toString('hex')}:`;
/**
 * Above the default 200 ms, as in rate-limits-redis.faults: in a CI rehearsal's PGlite pass (two
 * saturated cores) the fourth request was let through (200, not 429), the breaker's fail-open when a
 * command's timer fires before Redis's answer is read. This file is about the counter the two apps
 * share, not about Redis's latency.
 */
const REDIS_TIMEOUT_MS = '10000';

let ctx: TestContext;
let second: App;
let redis: Redis;
/** What the second app logged (the first's are in ctx.logs): a failure prints the breaker's lines. */
const secondLogs: Array<Record<string, unknown>> = [];
const breakerLines = () =>
  JSON.stringify(
    [...ctx.logs, ...secondLogs].filter((line) => String(line.msg).startsWith('rate-limit Redis')),
  );

beforeAll(async () => {
  ctx = await startTestApp({
    env: {
      REDIS_URL,
      RATE_LIMIT_REDIS_PREFIX: PREFIX,
      RATE_LIMIT_PER_ADDRESS: '3',
      RATE_LIMIT_WINDOW_SECONDS: '30',
      RATE_LIMIT_REDIS_TIMEOUT_MS: REDIS_TIMEOUT_MS,
    },
    captureLogs: true,
  });
  second = await buildApp({
    config: ctx.config,
    database: ctx.database,
    clock: ctx.clock,
    logger: { level: 'info', stream: jsonLogLines(secondLogs) },
  });
  redis = new Redis(REDIS_URL);
});
afterAll(async () => {
  await second?.close();
  await ctx?.close();
  await redis?.quit();
});

it('two app instances share one counter in Redis, under the configured prefix, with an expiry', async () => {
  const on = (app: App) => app.inject({ method: 'GET', url: '/openapi.json', remoteAddress: '10.1.0.1' });
  for (const app of [ctx.app, second, ctx.app]) expect((await on(app)).statusCode, breakerLines()).toBe(200);
  const refused = await on(second);
  expect(refused.statusCode, breakerLines()).toBe(429);
  expect(refused.json()).toMatchObject({ code: 3005, name: 'RATE_LIMITED' });
  expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(30);

  const key = `${PREFIX}addr:10.1.0.1`;
  expect(Number(await redis.get(key))).toBe(4);
  const ttl = await redis.pttl(key);
  expect(ttl).toBeGreaterThan(0);
  expect(ttl).toBeLessThanOrEqual(30_000);
  // Nothing was counted in PostgreSQL.
  const rows = await sql<{ n: number }>`SELECT count(*)::int AS n FROM rate_limit_counters`.execute(
    ctx.database.db,
  );
  expect(rows.rows[0]?.n).toBe(0);
  await redis.del(key);
});
