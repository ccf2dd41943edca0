// The bench rows on Citus (docs/scaling.md "On Citus: what the numbers say"): achieve (progress),
// the link check and the flash crowd (exact), each run against plain PostgreSQL and against a
// Citus coordinator with two workers in the same run, with the machine's CPU a request of each.
//   CITUS_URL=postgres://postgres@127.0.0.1:9700/postgres npm run bench:citus
// (a cluster from ../shared/citus/cluster.sh start NAME 9700 2; plain PostgreSQL from
// BENCH_DATABASE_URL, default 127.0.0.1:5432). Writes bench/results/citus.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describeCpu, measured } from './cpu-budget.ts';
import type { CpuPerRequest } from './cpu-budget.ts';
import { load, SECONDS } from './load.ts';
import type { LoadResult } from './load.ts';
import { flashThrough } from './multi-process.ts';
import {
  ADMIN_TOKEN,
  linkHalfTheUsers,
  log,
  MISSIONS,
  ROOT,
  SERVER_URL,
  setUpCatalog,
  sqlOn,
  startService,
  stop,
  USERS,
  waitForHttp,
} from './setup.ts';
import { prepareCitusDatabase } from '../test/citus/database.ts';

const CITUS_URL = process.env.CITUS_URL ?? 'postgres://postgres@127.0.0.1:9700/postgres';
const FLASH_USERS = Number(process.env.BENCH_CITUS_FLASH_USERS ?? 5000);
const PORT = 18090;

interface Measured {
  scenario: string;
  target: 'postgres' | 'citus';
  rps: number;
  p50: number;
  p99: number;
  failures: Record<string, number>;
  cpu: CpuPerRequest;
  exact?: boolean;
  note?: string;
}

/** A fresh database on the server `adminUrl` names (on every node when it is a Citus coordinator). */
async function freshDatabase(adminUrl: string, name: string): Promise<string> {
  await sqlOn(adminUrl, `CREATE DATABASE ${name}`);
  await prepareCitusDatabase(adminUrl, name).then((citus) =>
    citus ? sqlOn(adminUrl, `ALTER DATABASE ${name} RESET citus.shard_count`) : undefined,
  );
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function runOn(target: 'postgres' | 'citus', adminUrl: string): Promise<Measured[]> {
  const name = `bench_${target}_${Date.now()}`;
  const url = await freshDatabase(adminUrl, name);
  log(`${target}: database ${name}`);
  const service = startService({
    DATABASE_URL: url,
    PORT: String(PORT),
    HOST: '127.0.0.1',
    ADMIN_TOKEN,
    LOG_LEVEL: 'warn',
    PAYOUT_WORKER: 'false',
    WEBHOOK_WORKER: 'false',
    DEV_CHAIN: 'false',
    RATE_LIMIT_PER_PARTNER: '0',
  });
  const base = `http://127.0.0.1:${PORT}`;
  const rows: Measured[] = [];
  const costed = async (scenario: string, run: () => Promise<LoadResult>) => {
    const { result, cpu } = await measured([service.pid as number], run, (r) => r.total);
    const row: Measured = {
      scenario,
      target,
      rps: result.rps,
      p50: result.p50,
      p99: result.p99,
      failures: result.failures,
      cpu,
    };
    log(`${target} ${scenario}: ${result.rps.toFixed(0)}/s, p50 ${result.p50} ms, p99 ${result.p99} ms`);
    log(`  CPU: ${describeCpu(cpu)}`);
    rows.push(row);
    return row;
  };
  try {
    await waitForHttp(`${base}/readyz`, 120);
    const catalog = await setUpCatalog(base, url, FLASH_USERS);
    await linkHalfTheUsers(url, catalog.partnerId);
    const achieve = () =>
      load({
        url: `${base}/v1/achieve`,
        method: 'POST',
        headers: catalog.partnerHeaders,
        duration: SECONDS,
        requests: [{ setupRequest: (req) => ({ ...req, body: catalog.progressBody() }) }],
      });
    const linkCheck = () =>
      load({
        url: `${base}/v1/mission-users`,
        method: 'GET',
        headers: catalog.partnerHeaders,
        duration: SECONDS,
        requests: [
          {
            setupRequest: (req) => ({
              ...req,
              path: `/v1/mission-users?partnerUid=u${Math.floor(Math.random() * USERS)}`,
            }),
          },
        ],
      });
    await load({
      ...{ url: `${base}/v1/achieve`, method: 'POST', headers: catalog.partnerHeaders },
      duration: 2,
    }); // warm-up
    await costed(`achieve (progress, ${MISSIONS} daily missions, ${USERS.toLocaleString()} users)`, achieve);
    await costed('link check', linkCheck);
    let note = '';
    let exact = false;
    const flashRow = await costed(
      `flash crowd: ${FLASH_USERS.toLocaleString()} users, one budget`,
      async () => {
        const flash = await flashThrough(base, url, catalog, FLASH_USERS, 'flash');
        exact =
          flash.granted === FLASH_USERS &&
          flash.users === FLASH_USERS &&
          flash.rejected === 0 &&
          flash.remaining === '0' &&
          flash.errors === 0;
        note = `claims ${flash.granted + flash.rejected}, distinct users ${flash.users}, remaining ${flash.remaining}, errors ${flash.errors}`;
        return flash.result;
      },
    );
    flashRow.exact = exact;
    flashRow.note = note;
    log(`  ${exact ? 'exact' : 'NOT EXACT'}: ${note}`);
  } finally {
    await stop(service);
    await sqlOn(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
  }
  return rows;
}

async function main(): Promise<void> {
  const plain = await runOn('postgres', SERVER_URL);
  const citus = await runOn('citus', CITUS_URL);
  const table = plain.map((p, i) => {
    const c = citus[i] as Measured;
    return {
      scenario: p.scenario,
      postgres: {
        rps: Math.round(p.rps),
        p50: p.p50,
        p99: p.p99,
        machineUsPerRequest: Math.round(p.cpu.machine),
      },
      citus: {
        rps: Math.round(c.rps),
        p50: c.p50,
        p99: c.p99,
        machineUsPerRequest: Math.round(c.cpu.machine),
      },
      citusCostRatio: Math.round((c.cpu.machine / p.cpu.machine) * 100) / 100,
      ...(c.exact !== undefined && { exact: { postgres: p.exact, citus: c.exact }, note: c.note }),
      failures: { postgres: p.failures, citus: c.failures },
    };
  });
  for (const row of table)
    log(
      `${row.scenario}: PostgreSQL ${row.postgres.rps}/s (${row.postgres.machineUsPerRequest} µs a request), Citus ${row.citus.rps}/s (${row.citus.machineUsPerRequest} µs), cost x${row.citusCostRatio}`,
    );
  const dir = path.join(ROOT, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'citus.json'),
    `${JSON.stringify({ at: new Date().toISOString(), seconds: SECONDS, rows: table }, null, 2)}\n`,
  );
}

await main();
