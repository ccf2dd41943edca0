// More than one process (docs/scaling.md): two service processes and two payout workers on one
// PostgreSQL, behind Debian's nginx started on loopback with a generated configuration (never the
// system service). Used by `npm run bench` and by test/multi-process.concurrency.test.ts.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { load } from './load.ts';
import type { LoadResult } from './load.ts';
import { ADMIN_TOKEN, log, setUpCatalog, sqlOn, startProcess, stop, waitForHttp } from './setup.ts';
import type { BenchCatalog } from './setup.ts';

export const NGINX = process.env.NGINX_BIN ?? '/usr/sbin/nginx';

export interface Nginx {
  url: string;
  stop(): Promise<void>;
}

/** nginx on 127.0.0.1:port balancing (round robin, keep-alive) over the given local ports. */
export async function startNginx(port: number, upstreams: number[]): Promise<Nginx> {
  if (!existsSync(NGINX)) throw new Error(`${NGINX} not found (apt-get install nginx-light)`);
  const dir = mkdtempSync(path.join(tmpdir(), 'mrs-nginx-'));
  for (const sub of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(path.join(dir, sub));
  const conf = path.join(dir, 'nginx.conf');
  writeFileSync(
    conf,
    `worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  # nginx closes a client connection after 1,000 requests by default; the load generator then sends
  # the request it had in flight again, a second report of the same user that counts as a request
  # but can make no claim. Keep the connections, as a load balancer in front of a service would.
  keepalive_requests 10000000;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream service {
${upstreams.map((p) => `    server 127.0.0.1:${p};`).join('\n')}
    keepalive 64;
    keepalive_requests 10000000;
    # Shorter than the services' HTTP_KEEP_ALIVE_TIMEOUT_MS (5 s): nginx closes an idle kept
    # connection before the service does. The other way round, a POST sent on a connection at the
    # moment the service closes it is reset and answered 502, not retried (a POST is not idempotent
    # to nginx): 1 in 6,000 such sends in a test at that moment; once in the 100,000 of the row.
    keepalive_timeout ${process.env.BENCH_NGINX_UPSTREAM_IDLE ?? '4s'};
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://service;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $remote_addr;
    }
  }
}
`,
  );
  const child: ChildProcess = spawn(NGINX, ['-p', dir, '-c', conf, '-e', path.join(dir, 'error.log')], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/healthz`, 30);
  return {
    url,
    async stop() {
      await stop(child);
      // What nginx said (a 502's cause: a reset, a close, a timeout) goes with the run's output.
      const said = readFileSync(path.join(dir, 'error.log'), 'utf8').trim();
      if (said) log(`nginx's error log:\n${said.split('\n').slice(-20).join('\n')}`);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface Cluster {
  /** Through nginx. */
  url: string;
  /** Each service process directly. */
  services: string[];
  databaseUrl: string;
  stop(): Promise<void>;
}

/**
 * A fresh database, two services (no payout worker inside), two `npm run worker` processes and
 * nginx in front of the services. `env` is added to every service's and worker's environment.
 */
export async function startCluster(
  serverUrl: string,
  options: { basePort?: number; env?: Record<string, string> } = {},
): Promise<Cluster> {
  const basePort = options.basePort ?? 18180;
  const name = `bench_multi_${Date.now()}`;
  await sqlOn(serverUrl, `CREATE DATABASE ${name}`);
  const address = new URL(serverUrl);
  address.pathname = `/${name}`;
  const url = address.toString();
  const children: ChildProcess[] = [];
  let nginx: Nginx | undefined;
  const stopAll = async () => {
    await nginx?.stop();
    await Promise.all(children.map((c) => stop(c)));
    await sqlOn(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  };
  try {
    const common = { DATABASE_URL: url, LOG_LEVEL: 'warn', DEV_CHAIN: 'false', ADMIN_TOKEN, ...options.env };
    const ports = [basePort + 1, basePort + 2];
    // The first service migrates; the second starts once it is up (both would wait on the lock anyway).
    for (const port of ports) {
      children.push(
        startProcess(['src/main.ts'], {
          ...common,
          PORT: String(port),
          HOST: '127.0.0.1',
          PAYOUT_WORKER: 'false',
        }),
      );
      // Generous: starting on a loaded 2-core machine (the test suite's) took over a minute.
      await waitForHttp(`http://127.0.0.1:${port}/readyz`, 150);
    }
    for (let i = 0; i < 2; i++)
      children.push(startProcess(['src/payout/worker-cli.ts'], { ...common, PAYOUT_IDLE_MS: '20' }));
    nginx = await startNginx(basePort, ports);
    return {
      url: nginx.url,
      services: ports.map((p) => `http://127.0.0.1:${p}`),
      databaseUrl: url,
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

export interface FlashOutcome {
  rps: number;
  p50: number;
  p99: number;
  result: LoadResult;
  /** Claims not REJECTED, REJECTED ones, REQUESTED ones, distinct users, budget left. */
  granted: number;
  rejected: number;
  requested: number;
  users: number;
  remaining: string;
  errors: number;
  failures: Record<string, number>;
}

/**
 * `users` distinct users, linked beforehand as real users are (only linked users hold budget), complete
 * the flash mission once each through `base`; `idempotent`: each report with an Idempotency-Key.
 */
export async function flashThrough(
  base: string,
  url: string,
  catalog: BenchCatalog,
  users: number,
  prefix = 'crowd',
  idempotent = false,
  /** Wraps the crowd's load alone (not its set-up or check), to measure it: the bench counts its CPU. */
  around: (run: () => Promise<LoadResult>) => Promise<LoadResult> = (run) => run(),
): Promise<FlashOutcome> {
  await sqlOn(
    url,
    `INSERT INTO platform_accounts (id, issuer, subject) SELECT 'acc_${prefix}-' || n, 'bench', '${prefix}-' || n FROM generate_series(0, ${users - 1}) AS n;
     INSERT INTO user_mappings (partner_id, partner_uid, account_id, region) SELECT '${catalog.partnerId}', '${prefix}-' || n, 'acc_${prefix}-' || n, 'KR' FROM generate_series(0, ${users - 1}) AS n`,
  );
  let next = 0;
  const result = await around(() =>
    load({
      url: `${base}/v1/achieve`,
      method: 'POST',
      headers: catalog.partnerHeaders,
      amount: users,
      duration: 0,
      requests: [
        {
          setupRequest: (req) => ({
            ...req,
            body: JSON.stringify({ partnerUid: `${prefix}-${next++}`, missionKey: 'flash', completed: true }),
            ...(idempotent && { headers: { ...req.headers, 'idempotency-key': crypto.randomUUID() } }),
          }),
        },
      ],
    }),
  );
  // Two statements: on Citus claims and stripes are distributed, and a sub-query beside the
  // claims' aggregates is refused.
  const counts = (
    await sqlOn(
      url,
      `SELECT count(*) FILTER (WHERE status <> 'REJECTED')::int AS granted,
              count(*) FILTER (WHERE status = 'REJECTED')::int AS rejected,
              count(*) FILTER (WHERE status = 'REQUESTED')::int AS requested,
              count(DISTINCT partner_uid)::int AS users
       FROM claims WHERE budget_id = $1`,
      [catalog.budgetId],
    )
  ).rows[0] as { granted: number; rejected: number; requested: number; users: number };
  const left = (
    await sqlOn(url, `SELECT sum(remaining)::text AS remaining FROM budget_stripes WHERE budget_id = $1`, [
      catalog.budgetId,
    ])
  ).rows[0] as { remaining: string };
  const check = { ...counts, remaining: left.remaining };
  return {
    result,
    rps: result.rps,
    p50: result.p50,
    p99: result.p99,
    ...check,
    errors: result.errors + result.non2xx,
    failures: result.failures,
  };
}

/** Waits until every granted claim of the budget is paid; answers the paid count and the ledger's state. */
export async function waitForPayout(
  url: string,
  budgetId: string,
  expected: number,
  seconds = 120,
): Promise<{ paid: number; transfers: number; sum: string; seconds: number }> {
  const started = Date.now();
  let paid = 0;
  while (paid < expected && Date.now() - started < seconds * 1000) {
    await new Promise((r) => setTimeout(r, 100));
    paid = (
      await sqlOn(
        url,
        `SELECT count(*)::int AS n FROM claims WHERE budget_id = $1 AND status = 'SUCCEEDED'`,
        [budgetId],
      )
    ).rows[0].n as number;
  }
  const ledger = (
    await sqlOn(
      url,
      `SELECT (SELECT count(*) FROM ledger_transfers)::int AS transfers, (SELECT coalesce(sum(amount), 0) FROM ledger_entries)::text AS sum`,
    )
  ).rows[0] as { transfers: number; sum: string };
  return { paid, ...ledger, seconds: (Date.now() - started) / 1000 };
}

/** The bench's row: a flash crowd through nginx over two processes, half of it beyond the budget. */
export async function multiProcessScenario(options: {
  serverUrl: string;
  users: number;
  seconds: number;
}): Promise<{ flashRps: number; p50: number; p99: number; exact: boolean; note: string }> {
  const cluster = await startCluster(options.serverUrl);
  try {
    const budget = Math.floor(options.users / 2);
    const catalog = await setUpCatalog(cluster.url, cluster.databaseUrl, budget);
    const flash = await flashThrough(cluster.url, cluster.databaseUrl, catalog, options.users);
    const payout = await waitForPayout(cluster.databaseUrl, catalog.budgetId, flash.granted);
    const exact =
      flash.granted === budget &&
      flash.rejected === options.users - budget &&
      flash.users === options.users &&
      flash.remaining === '0' &&
      flash.errors === 0 &&
      payout.paid === budget &&
      payout.transfers === budget &&
      payout.sum === '0';
    return {
      flashRps: flash.rps,
      p50: flash.p50,
      p99: flash.p99,
      exact,
      note: `${options.users} users, budget ${budget}: granted ${flash.granted}, rejected ${flash.rejected}, left ${flash.remaining}, errors ${flash.errors}${flash.errors ? ` (${JSON.stringify(flash.failures)})` : ''}; two workers paid ${payout.paid} in ${payout.seconds.toFixed(1)} s (transfers ${payout.transfers}, ledger sum ${payout.sum})`,
    };
  } finally {
    await cluster.stop();
  }
}
