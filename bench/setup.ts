// What every bench run needs: a fresh database, the service as its own process, and the catalog
// set up through the admin API as an operator would (one partner, MISSIONS daily missions, a
// one-time FIXED-reward mission on its own budget for the flash crowd).
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';

export const ROOT = path.resolve(import.meta.dirname, '..');
export const SERVER_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const ADMIN_TOKEN = 'bench-admin-token-0123456789';
export const MISSIONS = 50;
export const USERS = 100_000;

export const log = (...args: unknown[]) =>
  console.log(`[bench ${new Date().toISOString().slice(11, 19)}]`, ...args);

export function databaseUrl(name: string): string {
  const url = new URL(SERVER_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function sqlOn(url: string, text: string, values: unknown[] = []) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(text, values);
  } finally {
    await client.end();
  }
}

/** The node arguments of an npm script of package.json that runs `node …` (prestart, start). */
function nodeScript(name: 'prestart' | 'start'): string[] {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const [command, ...args] = (pkg.scripts[name] ?? '').split(/\s+/);
  if (command !== 'node') throw new Error(`npm ${name} is not a plain node command: ${pkg.scripts[name]}`);
  return args;
}

/**
 * The service as `npm start` runs it: package.json's prestart (rebuilds the bundle when src/ is
 * newer) and start (the esbuild bundle in plain node), run with this node. BENCH_SERVICE_RUNNER=tsx
 * runs src/main.ts through tsx instead (the CPU profiles do: their summary names our folders by
 * source path).
 */
export function startService(env: Record<string, string>, nodeFlags: string[] = []): ChildProcess {
  if (process.env.BENCH_SERVICE_RUNNER === 'tsx') return startProcess(['src/main.ts'], env, nodeFlags);
  execFileSync(process.execPath, nodeScript('prestart'), { cwd: ROOT, stdio: 'inherit' });
  return spawn(process.execPath, [...nodeFlags, ...nodeScript('start')], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

/** A Node process running a TypeScript entry (through tsx), with extra node flags before it. */
export function startProcess(
  args: string[],
  env: Record<string, string>,
  nodeFlags: string[] = [],
): ChildProcess {
  return spawn(process.execPath, [...nodeFlags, '--import', 'tsx', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

export async function waitForHttp(url: string, seconds = 60): Promise<void> {
  const until = Date.now() + seconds * 1000;
  while (Date.now() < until) {
    try {
      if ((await fetch(url)).status < 500) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${url} did not come up`);
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
  if (child.exitCode === null) child.kill('SIGKILL');
}

export interface BenchCatalog {
  partnerId: string;
  apiKey: string;
  partnerHeaders: Record<string, string>;
  missionIds: string[];
  budgetId: string;
  /** A fresh progress-only achieve body (random user and daily mission). */
  progressBody(): string;
}

export async function setUpCatalog(
  base: string,
  url: string,
  flashUsers: number,
  partnerName = 'Bench partner',
): Promise<BenchCatalog> {
  const admin = async (method: string, route: string, body?: unknown) => {
    const response = await fetch(`${base}/admin/v1${route}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (response.status >= 300)
      throw new Error(`${method} ${route}: ${response.status} ${await response.text()}`);
    return (await response.json()) as Record<string, string>;
  };
  const partner = await admin('POST', '/partners', { name: partnerName, allowedIps: ['127.0.0.1'] });
  const { apiKey } = await admin('POST', `/partners/${partner.id}/api-keys`, {});
  const promotion = await admin('POST', '/promotions', {
    partnerId: partner.id,
    type: 'COMPOSITE',
    title: 'Bench',
    timezone: 'Asia/Seoul',
    startAt: '2020-01-01T00:00:00Z',
    status: 'ACTIVE',
  });
  const group = await admin('POST', `/promotions/${promotion.id}/mission-groups`, { title: 'Bench group' });
  for (let i = 0; i < MISSIONS; i++) {
    await admin('POST', `/mission-groups/${group.id}/missions`, {
      missionKey: `m${i}`,
      title: `Mission ${i}`,
      recurrence: 'DAILY',
      target: 10,
    });
  }
  const flash = await admin('POST', `/mission-groups/${group.id}/missions`, {
    missionKey: 'flash',
    title: 'Flash',
    recurrence: 'ONE_TIME',
  });
  const asset = await admin('POST', '/reward-assets', { symbol: 'PNT', name: 'Points', decimals: 0 });
  const budget = await admin('POST', '/budgets', {
    type: 'FIXED',
    assetId: asset.id,
    name: 'Flash budget',
    total: String(flashUsers),
  });
  await admin('PUT', `/missions/${flash.id}/reward`, { type: 'FIXED', budgetId: budget.id, amount: '1' });
  const missionIds = (
    await sqlOn(
      url,
      `SELECT id FROM missions WHERE mission_key <> 'flash' AND mission_group_id = $1 ORDER BY id`,
      [group.id],
    )
  ).rows.map((r) => r.id as string);
  return {
    partnerId: partner.id as string,
    apiKey: apiKey as string,
    partnerHeaders: {
      'x-partner-id': partner.id as string,
      'x-api-key': apiKey as string,
      'content-type': 'application/json',
    },
    missionIds,
    budgetId: budget.id as string,
    progressBody: () =>
      JSON.stringify({
        partnerUid: `u${Math.floor(Math.random() * USERS)}`,
        missionKey: `m${Math.floor(Math.random() * MISSIONS)}`,
        completed: false,
        metadata: { target: 10, current: Math.floor(Math.random() * 9) },
      }),
  };
}

/** Half of the USERS linked, as on a live service some are and some not (the link check's data). */
export async function linkHalfTheUsers(url: string, partnerId: string): Promise<void> {
  await sqlOn(
    url,
    `INSERT INTO platform_accounts (id, issuer, subject) SELECT 'acc_u' || n, 'bench', 'u' || n FROM generate_series(0, ${USERS - 1}, 2) AS n ON CONFLICT DO NOTHING`,
  );
  await sqlOn(
    url,
    `INSERT INTO user_mappings (partner_id, partner_uid, account_id, region) SELECT $1, 'u' || n, 'acc_u' || n, 'KR' FROM generate_series(0, ${USERS - 1}, 2) AS n ON CONFLICT DO NOTHING`,
    [partnerId],
  );
}
