// `npm run bench:profile`: where a request's time goes. Runs each hot scenario against its own
// service process started with --cpu-prof, then writes the profile (bench/results/profiles/) and a
// summary of self time by function and by area (bench/results/profile-<scenario>.txt). CPU shares
// stay meaningful on a loaded machine, where throughput does not. BENCH_PROFILE_SECONDS (default 10),
// BENCH_PROFILE_SCENARIOS (default "achieve,link,flash"), BENCH_FLASH_USERS (default 20,000).
// BENCH_PROFILE_KEYS=1 sends an Idempotency-Key on every achieve (files profile-<scenario>-keys.txt).
// "delivery" (asked for by name): the webhook worker alone draining BENCH_FLASH_USERS messages
// to a local receiver (docs/performance.md, "Third round"); it registers an endpoint, so list it last.
// BENCH_RECEIVER_DELAY_MS (default 0): the receiver answers that much later, as a partner's server
// across the internet would (delivery is then bound by waiting, not by CPU).
// BENCH_PROFILER=perf samples CPU with Linux perf (Debian's linux-perf) instead of V8's sampler,
// which counts wall time: a thread descheduled in a system call reads as busy in it
// (docs/performance.md, "Ninth round"). Files perf-<scenario>.txt, with µs of CPU a request.
// BENCH_PROFILE_MAIN_THREAD=1 (with perf): only the service's main thread, the one that runs its
// JavaScript, HTTP parser and database driver (docs/performance.md, "Thirteenth round").
// BENCH_PROFILE_KEEP_MAP=1 keeps node's /tmp/perf-<pid>.map, so that `perf script -i
// bench/results/profiles/<scenario>/perf.data` still names the JavaScript frames afterwards.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { load } from './load.ts';
import {
  ADMIN_TOKEN,
  ROOT,
  SERVER_URL,
  databaseUrl,
  linkHalfTheUsers,
  log,
  setUpCatalog,
  sqlOn,
  startProcess,
  stop,
  waitForHttp,
} from './setup.ts';
import { summarizeProfile } from './profile-summary.ts';
import { parsePerfScript, samplesOfThread, summarizePerf } from './perf-summary.ts';
import { cpuPerRequest, cpuSnapshot } from './cpu-budget.ts';
import type { CpuSnapshot } from './cpu-budget.ts';

const SECONDS = Number(process.env.BENCH_PROFILE_SECONDS ?? 10);
const FLASH_USERS = Number(process.env.BENCH_FLASH_USERS ?? 20_000);
// The flash crowd's warm-up: users of their own, linked and paid for like the profiled crowd's (a
// warm-up of two seconds took the crowd's first users, so the profiled crowd ended with users who
// had not linked and a spent budget: a fifth of its completions went down the transaction path).
const FLASH_WARM_USERS = Math.min(5_000, FLASH_USERS);
const SCENARIOS = (process.env.BENCH_PROFILE_SCENARIOS ?? 'achieve,link,flash').split(',');
const PORT = 18090;
const KEYS = process.env.BENCH_PROFILE_KEYS === '1';
const RECEIVER_DELAY_MS = Number(process.env.BENCH_RECEIVER_DELAY_MS ?? 0);
/** With BENCH_PROFILE_KEYS=1, a fresh Idempotency-Key on the request. */
const keyed = (req: { headers?: Record<string, string>; [k: string]: unknown }) =>
  KEYS ? { ...req, headers: { ...req.headers, 'idempotency-key': crypto.randomUUID() } } : req;
const RESULTS = path.join(ROOT, 'bench', 'results');
const PROFILER = process.env.BENCH_PROFILER ?? 'v8';
const MAIN_THREAD_ONLY = process.env.BENCH_PROFILE_MAIN_THREAD === '1';
const KEEP_MAP = process.env.BENCH_PROFILE_KEEP_MAP === '1';
if (!['v8', 'perf'].includes(PROFILER))
  throw new Error(`BENCH_PROFILER is v8 or perf, not ${JSON.stringify(PROFILER)}`);
// Both read perf's recording: with V8's sampler they would be ignored without a word.
if ((MAIN_THREAD_ONLY || KEEP_MAP) && PROFILER !== 'perf')
  throw new Error('BENCH_PROFILE_MAIN_THREAD and BENCH_PROFILE_KEEP_MAP need BENCH_PROFILER=perf');
if (PROFILER === 'perf' && spawnSync('perf', ['--version']).status !== 0)
  throw new Error('BENCH_PROFILER=perf needs perf on the PATH (Debian: apt-get install linux-perf)');

const dbName = `bench_profile_${Date.now()}`;
await sqlOn(SERVER_URL, `CREATE DATABASE ${dbName}`);
const url = databaseUrl(dbName);
const base = `http://127.0.0.1:${PORT}`;
const env = {
  DATABASE_URL: url,
  PORT: String(PORT),
  HOST: '127.0.0.1',
  ADMIN_TOKEN,
  LOG_LEVEL: 'warn',
  PAYOUT_WORKER: 'false',
  // The delivery scenario's receiver listens on loopback.
  WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true',
  // Node's heap defaults, not the bench's NODE_OPTIONS: run through tsx, the service's heap is
  // larger than the bundle's, and with the 128 MiB cap the garbage collector took 34-38% of a
  // profiled achieve's CPU against 3-4% without (docs/performance.md, "Ninth round").
  ...(process.env.BENCH_SERVICE_ENV ? JSON.parse(process.env.BENCH_SERVICE_ENV) : {}),
};
try {
  // Set-up with an unprofiled process.
  let service = startProcess(['src/main.ts'], env);
  await waitForHttp(`${base}/readyz`);
  const catalog = await setUpCatalog(base, url, FLASH_USERS + FLASH_WARM_USERS);
  await linkHalfTheUsers(url, catalog.partnerId);
  await sqlOn(
    url,
    `INSERT INTO platform_accounts (id, issuer, subject) SELECT 'acc_flash-' || n, 'bench', 'flash-' || n FROM generate_series(0, ${FLASH_USERS + FLASH_WARM_USERS - 1}) AS n;
     INSERT INTO user_mappings (partner_id, partner_uid, account_id, region) SELECT '${catalog.partnerId}', 'flash-' || n, 'acc_flash-' || n, 'KR' FROM generate_series(0, ${FLASH_USERS + FLASH_WARM_USERS - 1}) AS n`,
  );
  await stop(service);
  const profileDir = path.join(RESULTS, 'profiles');
  mkdirSync(profileDir, { recursive: true });
  for (const scenario of SCENARIOS) {
    const dir = path.join(profileDir, scenario);
    rmSync(dir, { recursive: true, force: true });
    if (scenario === 'delivery') {
      await profileDelivery(dir);
      continue;
    }
    const profiled = startProfiled(dir);
    service = profiled.service;
    await waitForHttp(`${base}/readyz`);
    let next = 0;
    const request =
      scenario === 'achieve'
        ? {
            url: `${base}/v1/achieve`,
            method: 'POST' as const,
            requests: [{ setupRequest: (req: object) => keyed({ ...req, body: catalog.progressBody() }) }],
          }
        : scenario === 'link'
          ? {
              url: `${base}/v1/mission-users`,
              method: 'GET' as const,
              requests: [
                {
                  setupRequest: (req: object) => ({
                    ...req,
                    path: `/v1/mission-users?partnerUid=u${Math.floor(Math.random() * 100_000)}`,
                  }),
                },
              ],
            }
          : {
              url: `${base}/v1/achieve`,
              method: 'POST' as const,
              amount: FLASH_USERS,
              requests: [
                {
                  setupRequest: (req: object) =>
                    keyed({
                      ...req,
                      body: JSON.stringify({
                        partnerUid: `flash-${next++}`,
                        missionKey: 'flash',
                        completed: true,
                      }),
                    }),
                },
              ],
            };
    const warmUp = scenario === 'flash' ? { amount: FLASH_WARM_USERS } : { duration: 2, amount: undefined };
    await load({ ...request, headers: catalog.partnerHeaders, ...warmUp });
    await profiled.begin();
    const result = await load({ ...request, headers: catalog.partnerHeaders, duration: SECONDS });
    const summary = await profiled.finish(result.total);
    const header = `${scenario}${KEYS ? ' (Idempotency-Key on every request)' : ''}: ${result.rps.toFixed(0)} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms, errors ${result.errors + result.non2xx} (${SECONDS} s, under ${profiled.under})\n\n`;
    writeFileSync(
      path.join(RESULTS, `${profiled.prefix}-${scenario}${KEYS ? '-keys' : ''}.txt`),
      header + summary,
    );
    log(header + summary.split('\n').slice(0, 40).join('\n'));
  }
} finally {
  await sqlOn(SERVER_URL, `DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
}

/** The webhook worker draining FLASH_USERS pending messages (two event types) to a local receiver. */
async function profileDelivery(dir: string): Promise<void> {
  const receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      if (RECEIVER_DELAY_MS === 0) response.writeHead(204).end();
      else setTimeout(() => response.writeHead(204).end(), RECEIVER_DELAY_MS);
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const port = (receiver.address() as { port: number }).port;
  let service = startProcess(['src/main.ts'], env);
  try {
    await waitForHttp(`${base}/readyz`);
    const admin = async (route: string, body: unknown) => {
      const response = await fetch(`${base}/admin/v1${route}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (response.status !== 201) throw new Error(`${route}: ${response.status} ${await response.text()}`);
      return (await response.json()) as { id: string };
    };
    const partner = await admin('/partners', { name: 'Delivery partner', allowedIps: ['127.0.0.1'] });
    const endpoint = await admin(`/partners/${partner.id}/webhook-endpoints`, {
      url: `http://127.0.0.1:${port}/hook`,
      events: ['mission.completed', 'claim.requested'],
    });
    await stop(service);
    // The profiled process is up before the messages arrive: the window is the delivery only.
    const profiled = startProfiled(dir);
    service = profiled.service;
    await waitForHttp(`${base}/readyz`);
    await new Promise((r) => setTimeout(r, 2000));
    await profiled.begin();
    const started = performance.now();
    await sqlOn(
      url,
      `INSERT INTO webhook_messages (id, endpoint_id, partner_id, event_type, rank, payload, status, next_attempt_at, created_at)
       SELECT 'msg_d' || n, $1, $2, t, r,
              jsonb_build_object('type', t, 'timestamp', now(), 'data', jsonb_build_object('partnerUid', 'flash-' || (n / 2), 'claimId', 'clm_' || n)),
              'PENDING', now() - interval '1 minute', now() - interval '1 minute'
       FROM generate_series(0, $3 - 1) AS n,
            LATERAL (SELECT CASE WHEN n % 2 = 0 THEN 'mission.completed' ELSE 'claim.requested' END AS t, 2 + n % 2 AS r) e`,
      [endpoint.id, partner.id, FLASH_USERS],
    );
    for (;;) {
      const { rows } = await sqlOn(
        url,
        `SELECT count(*)::int AS n FROM webhook_messages WHERE status = 'PENDING'`,
      );
      if ((rows[0] as { n: number }).n === 0) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const ended = performance.now();
    const summary = await profiled.finish(FLASH_USERS);
    const seconds = (ended - started) / 1000;
    const delay = RECEIVER_DELAY_MS > 0 ? `, receiver answering after ${RECEIVER_DELAY_MS} ms` : '';
    const header = `delivery${delay}: ${FLASH_USERS} messages in ${seconds.toFixed(1)} s (${(FLASH_USERS / seconds).toFixed(0)}/s, under ${profiled.under})\n\n`;
    writeFileSync(path.join(RESULTS, `${profiled.prefix}-delivery.txt`), header + summary);
    log(header + summary.split('\n').slice(0, 40).join('\n'));
  } finally {
    await stop(service);
    receiver.close();
  }
}

/**
 * The service under the chosen profiler. `begin` marks the start of the window to summarise;
 * `finish` ends it, stops the service and answers the summary (with perf, in µs of CPU for each
 * of `units`, requests or messages).
 */
function startProfiled(dir: string): {
  service: ChildProcess;
  under: string;
  prefix: string;
  begin(): Promise<void>;
  finish(units: number): Promise<string>;
} {
  if (PROFILER === 'v8') {
    const service = startProcess(['src/main.ts'], env, ['--cpu-prof', `--cpu-prof-dir=${dir}`]);
    let started = 0;
    return {
      service,
      under: '--cpu-prof',
      prefix: 'profile',
      begin: async () => {
        started = performance.now();
      },
      finish: async () => {
        const ended = performance.now();
        await stop(service);
        // The profile ends when the process exits: the window is counted back from there.
        const window = {
          endGapMicros: (performance.now() - ended) * 1000,
          windowMicros: (ended - started) * 1000,
        };
        // The main thread's profile (a second one is tsx's module-loader thread).
        const file = readdirSync(dir)
          .sort()
          .find((f) => f.endsWith('.cpuprofile'));
        if (file === undefined) throw new Error(`no profile written in ${dir}`);
        return summarizeProfile(JSON.parse(readFileSync(path.join(dir, file), 'utf8')), window);
      },
    };
  }
  // --perf-basic-prof also opens V8's log: kept in the profile's folder, not the working directory.
  mkdirSync(dir, { recursive: true });
  const service = startProcess(['src/main.ts'], env, [
    '--perf-basic-prof',
    `--logfile=${path.join(dir, 'v8.log')}`,
    '--no-logfile-per-isolate',
  ]);
  const pid = service.pid as number;
  const data = path.join(dir, 'perf.data');
  let recorder: ChildProcess | undefined;
  let before: CpuSnapshot | undefined;
  return {
    service,
    under: 'perf record -e cpu-clock',
    prefix: 'perf',
    begin: async () => {
      recorder = spawn(
        'perf',
        ['record', '-e', 'cpu-clock', '-F', '999', '-g', '-o', data, '-p', String(pid)],
        {
          stdio: 'ignore',
        },
      );
      await new Promise((r) => setTimeout(r, 300)); // attached
      before = cpuSnapshot([pid]);
    },
    finish: async (units) => {
      const cpu = cpuPerRequest(before as CpuSnapshot, cpuSnapshot([pid]), units);
      // perf writes its data on SIGTERM as on SIGINT; stop() also returns if it had already exited.
      if (recorder) await stop(recorder);
      await stop(service);
      const script = execFileSync('perf', ['script', '-i', data, '-F', 'tid,ip,sym,dso'], {
        maxBuffer: 1 << 30,
        stdio: ['ignore', 'pipe', 'ignore'],
      }).toString();
      if (!KEEP_MAP) rmSync(`/tmp/perf-${pid}.map`, { force: true });
      const all = parsePerfScript(script);
      const samples = MAIN_THREAD_ONLY ? samplesOfThread(all, pid) : all;
      if (samples.length === 0) throw new Error(`perf recorded no samples that could be read (${data})`);
      const whole = `the service's CPU a request (from /proc): ${cpu.server.toFixed(0)} µs, of which the kernel's ${cpu.serverKernel.toFixed(0)} µs`;
      if (!MAIN_THREAD_ONLY) return `${whole}\n\n${summarizePerf(samples, cpu.server)}`;
      const summary = summarizePerf(samples, cpu.mainThread, 30, 'the main thread');
      return `${whole}; its main thread's ${cpu.mainThread.toFixed(0)} µs\n\n${summary}`;
    },
  };
}
