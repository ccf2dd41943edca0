// Redis away under load (issue #28, finding 11): the rate limits' Redis of the test's own is killed,
// then frozen (SIGSTOP: connected but silent), while clients keep calling. Requests fail open at
// once: the median latency stays within 10 ms of normal and no request waits on Redis, nothing answers 5xx, the outage is logged once and
// counted in a metric, and when Redis answers again the limits count again. "Normal" is a second
// app on the same database whose Redis stays up, called in turn with the first by the same
// clients, so both see the same machine (these tests share a busy one).
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import type { App } from '../src/http/server.ts';
import { jsonLogLines, startTestApp } from './harness.ts';
import type { TestContext } from './harness.ts';
import { freePort } from './free-port.ts';
import { describeUnless } from './requirements.ts';

const REDIS_SERVER = '/usr/bin/redis-server';
const CLIENTS = 8;
const ROUNDS = 25;
/**
 * The test's RATE_LIMIT_REDIS_TIMEOUT_MS, above the default 200 ms: on CI's two saturated cores a
 * pause of the process longer than 200 ms let the command's timer fire before Redis's answer was read,
 * so the breaker opened while Redis was up (102 requests let through in the first test). The
 * mechanism is the same at any value; a request that waits on Redis still waits far longer than the
 * latency checks allow.
 */
const REDIS_TIMEOUT_MS = 1000;

interface OwnRedis {
  port: number;
  child: ChildProcess;
}

async function startRedis(port: number): Promise<OwnRedis> {
  const child = spawn(
    REDIS_SERVER,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  for (let i = 0; i < 100; i++) {
    const client = new Redis(port, '127.0.0.1', {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.ping();
      client.disconnect();
      return { port, child };
    } catch {
      client.disconnect();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  throw new Error('redis-server did not start');
}

function killRedis(redis: OwnRedis | undefined): Promise<void> {
  const child = redis?.child;
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGCONT');
    child.kill('SIGKILL');
  });
}

let steady: OwnRedis;
let failing: OwnRedis;
let ctx: TestContext;
let normalApp: App;
let probe: Redis;

interface Sample {
  normal: number[];
  away: number[];
  statuses: number[];
}

/** Each load's addresses are its own (10.<n>.client.round), so no address reaches the limit of 3. */
let loads = 9;

/** CLIENTS concurrent clients, ROUNDS rounds each calling both apps in turn, from their own addresses. */
async function load(): Promise<Sample> {
  const sample: Sample = { normal: [], away: [], statuses: [] };
  const network = loads++;
  const call = async (app: App, into: number[], address: string) => {
    const started = performance.now();
    const response = await app.inject({ method: 'GET', url: '/v1/no-such-route', remoteAddress: address });
    into.push(performance.now() - started);
    sample.statuses.push(response.statusCode);
  };
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      for (let round = 0; round < ROUNDS; round++) {
        const address = `10.${network}.${client}.${round}`;
        if (round % 2 === 0) {
          await call(normalApp, sample.normal, address);
          await call(ctx.app, sample.away, address);
        } else {
          await call(ctx.app, sample.away, address);
          await call(normalApp, sample.normal, address);
        }
      }
    }),
  );
  return sample;
}

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
};

/**
 * Why a sample's latency is not normal, or undefined: the away app's median is within 10 ms of the
 * normal one's, and its 99th percentile under the normal one's plus 150 ms, less than the REDIS_TIMEOUT_MS a
 * request waiting on Redis would wait: nobody waited on Redis.
 */
function latencyProblem(sample: Sample): string | undefined {
  const [awayMedian, normalMedian] = [quantile(sample.away, 0.5), quantile(sample.normal, 0.5)];
  const [awayTail, normalTail] = [quantile(sample.away, 0.99), quantile(sample.normal, 0.99)];
  if (awayMedian >= normalMedian + 10) return `median ${awayMedian} ms against ${normalMedian} ms`;
  if (awayTail >= normalTail + 150) return `99th percentile ${awayTail} ms against ${normalTail} ms`;
  return undefined;
}

/**
 * Samples until one has a normal latency, at most three; returns every sample taken. A request that
 * waits on Redis waits in every sample (the fault lasts the whole phase), while one pause of CI's busy
 * two cores (a collection, another test file's burst) lands on a few of one app's requests in one
 * sample: it failed the 99th percentile twice in CI (254 ms against 22) with nothing waiting on Redis.
 */
async function loadUntilNormal(): Promise<Sample[]> {
  const samples: Sample[] = [];
  for (;;) {
    samples.push(await load());
    const problem = latencyProblem(samples.at(-1) as Sample);
    if (problem === undefined) return samples;
    if (samples.length === 3) expect(problem, 'three samples in a row').toBeUndefined();
  }
}

const letThrough = async () =>
  (await ctx.app.metrics.rateLimitUnavailable.get()).values.reduce((sum, v) => sum + v.value, 0);
const storeUp = async () => (await ctx.app.metrics.rateLimitStoreUp.get()).values[0]?.value;
const logsStartingWith = (text: string) =>
  ctx.logs.filter((line) => String(line.msg).startsWith(text)).length;
/** What the breaker logged, for a failure's message: why Redis was skipped, if it was. */
const breakerLines = () =>
  JSON.stringify(ctx.logs.filter((line) => String(line.msg).startsWith('rate-limit Redis')));

/** Until one address is refused by a limit of 3: the limits count in Redis again. */
async function untilCountingAgain(address: string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const response = await ctx.app.inject({
      method: 'GET',
      url: '/v1/no-such-route',
      remoteAddress: address,
    });
    if (response.statusCode === 429) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${address} was never limited again`);
}

describeUnless(
  existsSync(REDIS_SERVER)
    ? undefined
    : `no ${REDIS_SERVER} (apt-get install redis-server; .ci/run installs it)`,
)('rate limits with Redis away', () => {
  beforeAll(async () => {
    steady = await startRedis(await freePort());
    failing = await startRedis(await freePort());
    ctx = await startTestApp({
      captureLogs: true,
      env: {
        REDIS_URL: `redis://127.0.0.1:${failing.port}`,
        // The load's addresses stay under the limit; untilCountingAgain goes over it.
        RATE_LIMIT_PER_ADDRESS: '3',
        RATE_LIMIT_WINDOW_SECONDS: '600',
        RATE_LIMIT_REDIS_TIMEOUT_MS: String(REDIS_TIMEOUT_MS),
      },
    });
    const config = ctx.config;
    normalApp = await buildApp({
      config: {
        ...config,
        rateLimits: {
          ...config.rateLimits,
          redisUrl: `redis://127.0.0.1:${steady.port}`,
          // Counted like the other, never refused: it is the yardstick of every phase.
          perAddress: 1_000_000,
        },
      },
      database: ctx.database,
      clock: ctx.clock,
      // Logs like the other app (the harness's captureLogs parses every line), so both cost the same.
      logger: {
        level: 'info',
        stream: jsonLogLines([]),
      },
    });
    probe = new Redis(failing.port, '127.0.0.1', { maxRetriesPerRequest: 0 });
    probe.on('error', () => {});
  }, 60_000);

  afterAll(async () => {
    failing?.child.kill('SIGCONT');
    probe?.disconnect();
    await normalApp?.close();
    await ctx?.close();
    await killRedis(failing);
    await killRedis(steady);
  });

  it('counts in Redis while it is up', async () => {
    const samples = await loadUntilNormal();
    expect(samples.every((sample) => sample.statuses.every((status) => status === 404))).toBe(true);
    expect(await probe.get('mrs:rl:addr:10.9.0.0')).toBe('1');
    expect(await letThrough(), breakerLines()).toBe(0);
    expect(await storeUp()).toBe(1);
  });

  it('Redis killed: every request fails open at once, logged once, counted in the metric', async () => {
    probe.disconnect();
    await killRedis(failing);
    // Twice: the first moment, and again after the breaker's cool-down had time to probe.
    const samples = [...(await loadUntilNormal()), ...(await loadUntilNormal())];
    expect(samples.every((sample) => sample.statuses.every((status) => status === 404))).toBe(true);
    expect(await letThrough()).toBe(samples.length * CLIENTS * ROUNDS);
    expect(logsStartingWith('rate-limit Redis unavailable')).toBe(1);
    expect(await storeUp()).toBe(0);

    failing = await startRedis(failing.port);
    await untilCountingAgain('10.8.0.1');
    expect(await storeUp()).toBe(1);
    expect(logsStartingWith('rate-limit Redis answers again')).toBe(1);
  }, 60_000);

  it('Redis frozen (connected, silent): requests wait at most the command timeout, then not at all', async () => {
    const before = await letThrough();
    failing.child.kill('SIGSTOP');
    const frozen = await load();
    const frozenAgain = await loadUntilNormal();
    expect(
      [frozen, ...frozenAgain].every((sample) => sample.statuses.every((status) => status === 404)),
    ).toBe(true);
    // The requests of the first moment wait out RATE_LIMIT_REDIS_TIMEOUT_MS; then the breaker skips
    // Redis (without the timeout they would wait for as long as Redis stays frozen).
    expect(Math.max(...frozen.away)).toBeLessThan(Math.max(...frozen.normal) + REDIS_TIMEOUT_MS + 1000);
    expect(await letThrough()).toBe(before + (1 + frozenAgain.length) * CLIENTS * ROUNDS);
    expect(logsStartingWith('rate-limit Redis unavailable')).toBe(2);

    failing.child.kill('SIGCONT');
    await untilCountingAgain('10.8.0.2');
    expect(logsStartingWith('rate-limit Redis answers again')).toBe(2);
  }, 60_000);
});
