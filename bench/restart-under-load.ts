// After a PostgreSQL restart under load (issue #28, fault 10): achieve at 32 connections before, during
// FAULTS postmaster kills of DOWN_MS each (or pg_ctl restarts with DOWN_MS=0) and after, with the recommended
// heap flags; prints throughput, heap in use and major collections. PIPE=1 SLOW=<bytes per 10 ms> reads the
// service's standard output slowly, as a log shipper behind does. `npx tsx bench/restart-under-load.ts`
/* eslint-disable @typescript-eslint/no-explicit-any */
import { readFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { createOwnPostgres, postgresBinDir } from '../test/own-postgres.ts';
import { setUpCatalog, linkHalfTheUsers, ADMIN_TOKEN, waitForHttp } from '../bench/setup.ts';
import { load } from '../bench/load.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const cluster = await createOwnPostgres(postgresBinDir() as string);
await cluster.start();
const port = 40000 + Math.floor(Math.random() * 1000);
const base = `http://127.0.0.1:${port}`;
const child = spawn(
  process.execPath,
  [
    '--max-old-space-size=128',
    '--max-semi-space-size=32',
    ...(process.env.ENTRY === 'tsx'
      ? ['--import', 'tsx', 'src/main.ts']
      : ['--import', './dist/server/register.mjs', 'dist/server/main.mjs']),
  ],
  {
    env: {
      ...process.env,
      DATABASE_URL: cluster.url,
      PORT: String(port),
      HOST: '127.0.0.1',
      ADMIN_TOKEN,
      LOG_LEVEL: 'warn',
      METRICS_TOKEN: 'tok-0123456789abcdef',
      ...(process.env.EXTRA ? JSON.parse(process.env.EXTRA) : {}),
    },
    stdio: ['ignore', process.env.PIPE ? 'pipe' : 'ignore', process.env.SHOWLOG ? 'inherit' : 'ignore'],
  },
);
let logBytes = 0;
child.stdout?.on('data', (c: Buffer) => {
  logBytes += c.length;
});
if (process.env.SLOW) {
  child.stdout?.pause();
  setInterval(() => {
    child.stdout?.read(Number(process.env.SLOW));
  }, 10);
}
try {
  await waitForHttp(`${base}/readyz`);
  const catalog = await setUpCatalog(base, cluster.url, 1000);
  await linkHalfTheUsers(cluster.url, catalog.partnerId);
  const metric = async () => {
    const text = await (
      await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer tok-0123456789abcdef' } })
    ).text();
    const get = (re: RegExp) => Number(re.exec(text)?.[1] ?? NaN);
    return {
      heapMB: Math.round(get(/^nodejs_heap_size_used_bytes (\S+)/m) / 1e6),
      logMB: Math.round(logBytes / 1e6),
      majorGcs: get(/^nodejs_gc_duration_seconds_count\{kind="major"\} (\S+)/m),
    };
  };
  const req = () => ({
    url: `${base}/v1/achieve`,
    method: 'POST' as const,
    headers: catalog.partnerHeaders,
    requests: [{ setupRequest: (r: any) => ({ ...r, body: catalog.progressBody() }) }],
  });
  const cpu = () => {
    const s = (readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1] ?? '').split(' ');
    return (Number(s[11]) + Number(s[12])) / 100;
  };
  const row = async (name: string, seconds: number) => {
    const r = await load({ ...req(), duration: seconds });
    console.log(
      name,
      { rps: Math.round(r.rps), p99: r.p99, non2xx: r.non2xx, errors: r.errors, failures: r.failures },
      await metric(),
    );
    return r;
  };
  await row('warm', 5);
  const before = await row('before', 8);
  const during = load({ ...req(), duration: Number(process.env.DURING ?? 10) });
  await sleep(2000);
  const downMs = Number(process.env.DOWN_MS ?? 0);
  for (let k = 0; k < Number(process.env.FAULTS ?? 1); k++) {
    console.log('fault', k);
    if (downMs > 0) {
      await cluster.killPostmaster();
      await sleep(downMs);
      await cluster.start();
    } else await cluster.restart();
    await sleep(1000);
  }
  const d = await during;
  console.log('during', { rps: Math.round(d.rps), failures: d.failures }, await metric());
  for (let i = 0; i < 3; i++) {
    const c0 = cpu();
    const m0 = await metric();
    await sleep(3000);
    const m1 = await metric();
    console.log('idle', {
      cpuPct: Math.round(((cpu() - c0) / 3) * 100),
      majorGcsPerS: (m1.majorGcs - m0.majorGcs) / 3,
      heapMB: m1.heapMB,
    });
  }
  const ready = await fetch(`${base}/readyz`);
  console.log('readyz', ready.status, await ready.text());
  const after = await row('after', 8);
  console.log('ratio', (after.rps / before.rps).toFixed(2));
} finally {
  child.kill('SIGKILL');
  await cluster.destroy();
}
