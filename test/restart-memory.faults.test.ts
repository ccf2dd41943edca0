// What kept memory after a database restart under load (issue #28, fault 10): every refused request
// wrote an error line with its stack, pino's default destination buffered those lines without bound
// while standard output was slower than them, and with the recommended --max-old-space-size=128 the
// process collected garbage back to back, /readyz still 200. Here: a flood of refusals writes one
// line a second per kind; the log buffer is bounded when standard output does not keep up (the lines
// beyond it are dropped and counted); /readyz says not ready while garbage collection saturates the
// process, and ready again once it stops. And the scenario itself (PostgreSQL pass): after a
// postmaster kill under load, the heap is back at its level before.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './harness.ts';
import type { TestContext } from './harness.ts';
import { createOwnPostgres, ownPostgresUnavailable, postgresBinDir } from './own-postgres.ts';
import type { OwnPostgres } from './own-postgres.ts';
import { freePort } from './free-port.ts';
import { describeUnless, firstReason, needsPostgres } from './requirements.ts';
import { ADMIN_TOKEN, linkHalfTheUsers, setUpCatalog, waitForHttp } from '../bench/setup.ts';
import { load } from '../bench/load.ts';
import autocannon from 'autocannon';

describe('refusals in a flood', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    // Every request is over the heap limit: refused with 503 by the load shedding.
    ctx = await startTestApp({ captureLogs: true, env: { LOAD_SHED_MAX_HEAP_BYTES: '1' } });
  });
  afterAll(async () => ctx?.close());

  it('write one line a second per kind, without a stack, counting the others', async () => {
    // The first samples after start-up are ignored (load-shedding.ts): wait for the refusals.
    ctx.logs.length = 0;
    const started = performance.now();
    for (let i = 0; i < 100; i++) {
      if ((await ctx.app.inject({ method: 'GET', url: '/v1/mission-users' })).statusCode === 503) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    // 600 refusals spread over about three seconds.
    const answers = [];
    for (let round = 0; round < 12; round++) {
      answers.push(
        ...(await Promise.all(
          Array.from({ length: 50 }, () => ctx.app.inject({ method: 'GET', url: '/v1/mission-users' })),
        )),
      );
      await new Promise((r) => setTimeout(r, 250));
    }
    const seconds = (performance.now() - started) / 1000;
    expect(answers.every((a) => a.statusCode === 503)).toBe(true);
    expect(answers[0]?.json()).toMatchObject({ code: 3098, name: 'SERVICE_UNAVAILABLE' });
    const lines = ctx.logs.filter((l) => Number(l.level) >= 40);
    // Lines at least a second apart, each saying how many more were refused since the last.
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.length).toBeLessThanOrEqual(Math.floor(seconds) + 1);
    for (const line of lines)
      expect(line).toMatchObject({
        msg: 'request refused: service unavailable',
        kind: 'SERVICE_UNAVAILABLE',
      });
    expect(lines.some((l) => Number(l.refusedSinceLastLine) > 50)).toBe(true);
    expect(JSON.stringify(lines)).not.toMatch(/"stack"/);
  });
});

describe('the log buffer', () => {
  it('stays bounded when standard output does not keep up: lines are dropped and counted', async () => {
    // A process logging 40 MB through the service's log output, its standard output a pipe nobody reads.
    const script = `
      import pino from 'pino';
      import { processLogOutput, droppedLogLines } from './src/logging/log-output.ts';
      const log = pino({ level: 'info' }, processLogOutput(1024 * 1024).stream);
      const before = process.memoryUsage().heapUsed;
      const filler = 'x'.repeat(1000);
      for (let i = 0; i < 40000; i++) log.error({ filler, i }, 'request failed');
      globalThis.gc?.();
      const grown = process.memoryUsage().heapUsed - before;
      process.stderr.write(JSON.stringify({ grown, dropped: droppedLogLines() }) + '\\n');
      process.exit(0);
    `;
    const child = spawn(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', script],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child.stdout.pause();
    let errors = '';
    const exited = new Promise((resolve) => child.on('exit', resolve));
    await new Promise<void>((resolve) =>
      child.stderr.on('data', (chunk: Buffer) => {
        errors += chunk.toString();
        if (errors.includes('\n')) resolve();
      }),
    );
    // Now standard output is read: the process flushes what it kept and exits.
    child.stdout.resume();
    await exited;
    const line = errors.split('\n').find((l) => l.startsWith('{"grown"'));
    expect(line, errors).toBeDefined();
    const { grown, dropped } = JSON.parse(line as string) as { grown: number; dropped: number };
    // 40 MB of lines were written; what the process holds of them is the bounded buffer.
    expect(grown).toBeLessThan(8 * 1024 * 1024);
    expect(dropped).toBeGreaterThan(30_000);
  }, 60_000);
});

describe('/readyz while garbage collection saturates the process', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await startTestApp({ env: { READYZ_MAX_GC_PERCENT: '50' } });
  });
  afterAll(async () => ctx?.close());

  it('is not ready while the process collects back to back, and ready again after', async () => {
    expect((await ctx.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    // Full collections back to back for six seconds, as a heap at its limit does.
    const until = performance.now() + 6000;
    while (performance.now() < until) {
      gc();
      await new Promise((r) => setImmediate(r));
    }
    const busy = await ctx.app.inject({ method: 'GET', url: '/readyz' });
    expect(busy.statusCode).toBe(503);
    expect(busy.json<{ message: string }>().message).toMatch(
      /^not ready: the process spent \d+% of the last 5 s collecting garbage \(heap \d+ of \d+ MB\)$/,
    );
    // Once the collections stop, the window empties: ready again.
    await new Promise((r) => setTimeout(r, 6500));
    expect((await ctx.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
  }, 60_000);
});

// The scenario itself, on a PostgreSQL cluster of the test's own: the service as its own
// process with the recommended heap flags (docs/operations.md), 32 clients reporting progress, and the
// database's postmaster killed twice under that load. Its standard output is read at 400 KB/s and not
// at all from the outage on (a log shipper that is behind, then stuck): what the process keeps of
// the outage's refusals stays in its heap. Afterwards the heap's old space is back at its level
// before: what the outage left behind is what made the process crawl (with the log fix taken
// out, 66 MB against 49, and throughput a tenth of before; docs/operations.md). Throughput and the
// garbage collector's share of the process's CPU are printed, not asserted: both were asserted in
// turn and both failed CI runs with the heap unchanged (62/s before, at best 21 after; a GC share of
// 0.34 before and 0.58-0.80 after, its pauses counted in wall time, on two cores running Chromium and
// two test workers at a load average of 15). They measure the machine's share, not the process;
// speed is measured where it belongs, in bench/ (the bench's RSS and open-loop rows).
const bin = postgresBinDir();
const cannotRun = ownPostgresUnavailable();
const onPostgresPass = process.env.DATABASE_URL !== undefined && process.env.DATABASE_URL !== '';
describeUnless(firstReason(cannotRun, needsPostgres('it runs on the PostgreSQL pass')))(
  `a PostgreSQL restart under load, with the recommended heap flags${onPostgresPass ? '' : ' (PostgreSQL pass only)'}`,
  () => {
    let cluster: OwnPostgres;
    let service: ChildProcess;
    let base: string;
    let reader: NodeJS.Timeout | undefined;
    let reading = true;
    const METRICS_TOKEN = 'restart-test-metrics-token-0123';
    const REFUSALS = 12_000;

    beforeAll(async () => {
      cluster = await createOwnPostgres(bin as string);
      await cluster.start();
      const port = await freePort();
      base = `http://127.0.0.1:${port}`;
      service = spawn(
        process.execPath,
        ['--max-old-space-size=128', '--max-semi-space-size=32', '--import', 'tsx', 'src/main.ts'],
        {
          env: {
            ...process.env,
            DATABASE_URL: cluster.url,
            PORT: String(port),
            HOST: '127.0.0.1',
            ADMIN_TOKEN,
            LOG_LEVEL: 'warn',
            METRICS_TOKEN,
            PAYOUT_WORKER: 'false',
            WEBHOOK_WORKER: 'false',
            // A loaded test machine delays the event loop by itself: no shedding of the test's own load.
            LOAD_SHED_MAX_EVENT_LOOP_DELAY_MS: '0',
            LOAD_SHED_MAX_LOOP_UTILIZATION: '0',
          },
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      service.stdout?.pause();
      reader = setInterval(() => {
        if (reading) service.stdout?.read(4000);
      }, 10);
      await waitForHttp(`${base}/readyz`);
    }, 120_000);
    afterAll(async () => {
      clearInterval(reader);
      if (service && service.exitCode === null) {
        const exited = new Promise((resolve) => service.once('exit', resolve));
        service.kill('SIGKILL');
        await exited;
      }
      await cluster?.destroy();
    }, 30_000);

    /** The service's metrics, as text. */
    const metricsText = async () =>
      (await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
    /** The sum of the values of every series the pattern (with its value as group 1) matches. */
    const sumOf = (text: string, series: RegExp) => {
      let sum = 0;
      for (const match of text.matchAll(series)) sum += Number(match[1]);
      return sum;
    };

    /** The heap's old space in use (MB): where what a process keeps ends up; the young space is garbage. */
    const oldSpaceMB = async () => {
      const bytes = /^nodejs_heap_space_size_used_bytes\{space="old"\} (\S+)/m.exec(await metricsText())?.[1];
      return Number(bytes) / 1e6;
    };

    /** The process's CPU seconds so far and the garbage collector's pauses in them (seconds). */
    const cpuAndGc = async () => {
      const text = await metricsText();
      const gc = sumOf(text, /^nodejs_gc_duration_seconds_sum\{[^}]*\} (\S+)/gm);
      const cpu = Number(/^process_cpu_seconds_total (\S+)/m.exec(text)?.[1]);
      return { cpu, gc };
    };

    it('leaves the heap at its level before', async () => {
      const catalog = await setUpCatalog(base, cluster.url, 1000);
      await linkHalfTheUsers(cluster.url, catalog.partnerId);
      const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
      /**
       * A run of the achieve load, with the least old space seen during it (read four times a
       * second): under load the major collections come often, so the least reading is what the
       * process keeps, where a single reading wanders by several MB with the garbage not yet collected.
       */
      const achieve = async (seconds: number) => {
        let least = Number.POSITIVE_INFINITY;
        const start = await cpuAndGc();
        const sampler = setInterval(() => {
          void oldSpaceMB().then(
            (mb) => (least = Math.min(least, mb)),
            () => {},
          );
        }, 250);
        try {
          const result = await load({
            url: `${base}/v1/achieve`,
            method: 'POST',
            headers: catalog.partnerHeaders,
            connections: 32,
            duration: seconds,
            requests: [{ setupRequest: (r) => ({ ...r, body: catalog.progressBody() }) }],
          });
          const end = await cpuAndGc();
          const gcShare = (end.gc - start.gc) / (end.cpu - start.cpu);
          return { ...result, leastOldSpaceMB: least, gcShare };
        } finally {
          clearInterval(sampler);
        }
      };

      await achieve(3);
      const before = await achieve(6);
      expect(before.non2xx + before.errors, JSON.stringify(before.failures)).toBe(0);

      // The same load while the postmaster is killed and kept down until REFUSALS requests were
      // answered 503 (at most 120 s): what the outage leaves in the heap is counted in refusals, not
      // seconds, of which a loaded machine refuses a few hundred. Without the fix each refusal kept
      // a line of about 2 KB with its stack in the log buffer: 25 MB for these. (A machine so loaded
      // that 120 s refuse fewer tests less: the summary says how many.)
      reading = false;
      const refusedSoFar = async () =>
        sumOf(
          await metricsText().catch(() => ''),
          /^mrs_http_requests_total\{[^}]*status="503"[^}]*\} (\S+)/gm,
        );
      let finish = () => {};
      const outageDone = new Promise<void>((resolve) => (finish = resolve));
      const outageLoad = autocannon(
        {
          url: `${base}/v1/achieve`,
          method: 'POST',
          headers: catalog.partnerHeaders,
          connections: 32,
          duration: 600,
          requests: [{ setupRequest: (r) => ({ ...r, body: catalog.progressBody() }) }],
        },
        () => finish(),
      );
      await sleep(1000);
      const refusedBefore = await refusedSoFar();
      await cluster.killPostmaster();
      const downAt = performance.now();
      let refused = 0;
      while (refused < REFUSALS && performance.now() - downAt < 120_000) {
        await sleep(500);
        refused = (await refusedSoFar()) - refusedBefore;
      }
      await cluster.start();
      for (let i = 0; i < 600 && (await fetch(`${base}/readyz`)).status !== 200; i++) await sleep(50);

      outageLoad.stop();
      await outageDone;

      // After: up to three runs of the same load, until the heap is back (the first run after the
      // restart may still be filling the pool and collecting the outage's garbage).
      // Within 8 MB of before (readings of the same process wander by a few MB); the log backlog of
      // the outage's refusals with their stacks was three times that.
      const heapLimitMB = before.leastOldSpaceMB + 8;
      const after = [];
      for (let run = 0; run < 3; run++) {
        after.push(await achieve(6));
        if ((after.at(-1)?.leastOldSpaceMB ?? Infinity) <= heapLimitMB) break;
      }
      const heapAfter = Math.min(...after.map((r) => r.leastOldSpaceMB));
      const summary = JSON.stringify({
        rpsBefore: Math.round(before.rps),
        rpsAfter: after.map((r) => Math.round(r.rps)),
        gcShareOfCpu: { before: before.gcShare, after: after.map((r) => r.gcShare) },
        refusedDuringOutage: refused,
        oldSpaceMB: { before: before.leastOldSpaceMB, after: heapAfter },
      });
      console.log(`restart under load: ${summary}`);
      expect(heapAfter, summary).toBeLessThanOrEqual(heapLimitMB);
      reading = true;
    }, 400_000);
  },
);
