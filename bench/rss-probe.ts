// Diagnostic (docs/performance.md, "Memory"): the service under 256 connections of achieve for
// BENCH_RSS_SECONDS, sampling its RSS and V8 heap (from /metrics) every 2 s, to tell a leak (heap
// after GC keeps growing) from a heap that only grows until the collector's limits.
import { readFileSync } from 'node:fs';
import { load } from './load.ts';
import {
  ADMIN_TOKEN,
  SERVER_URL,
  databaseUrl,
  setUpCatalog,
  sqlOn,
  startProcess,
  stop,
  waitForHttp,
} from './setup.ts';

const SECONDS = Number(process.env.BENCH_RSS_SECONDS ?? 40);
const PORT = 18095;
const name = `bench_rss_${Date.now()}`;
await sqlOn(SERVER_URL, `CREATE DATABASE ${name}`);
const url = databaseUrl(name);
const base = `http://127.0.0.1:${PORT}`;
const service = startProcess(
  ['src/main.ts'],
  {
    DATABASE_URL: url,
    PORT: String(PORT),
    HOST: '127.0.0.1',
    ADMIN_TOKEN,
    LOG_LEVEL: 'warn',
    PAYOUT_WORKER: 'false',
    DEV_CHAIN: 'false',
    RATE_LIMIT_PER_PARTNER: '0',
    METRICS_TOKEN: 'bench-metrics-token-0123456789',
  },
  (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean),
);
try {
  await waitForHttp(`${base}/readyz`);
  const catalog = await setUpCatalog(base, url, 10);
  const reading = async () => {
    const text = await (
      await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer bench-metrics-token-0123456789' } })
    ).text();
    const value = (metric: string) =>
      Number(new RegExp(`^${metric}(?:\\{[^}]*\\})? (\\S+)`, 'm').exec(text)?.[1] ?? NaN);
    const rss =
      Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${service.pid}/status`, 'utf8'))?.[1]) / 1024;
    return `rss ${rss.toFixed(0)} MiB, heap used ${(value('nodejs_heap_size_used_bytes') / 2 ** 20).toFixed(0)} MiB, heap total ${(value('nodejs_heap_size_total_bytes') / 2 ** 20).toFixed(0)} MiB, external ${(value('nodejs_external_memory_bytes') / 2 ** 20).toFixed(0)} MiB`;
  };
  console.log('idle:', await reading());
  const sampler = setInterval(() => void reading().then((r) => console.log(r)), 2000);
  const result = await load({
    url: `${base}/v1/achieve`,
    method: 'POST',
    headers: catalog.partnerHeaders,
    connections: 256,
    duration: SECONDS,
    requests: [{ setupRequest: (req) => ({ ...req, body: catalog.progressBody() }) }],
  });
  clearInterval(sampler);
  console.log(`${result.rps.toFixed(0)} req/s; after:`, await reading());
  await new Promise((r) => setTimeout(r, 5000));
  console.log('5 s idle after:', await reading());
} finally {
  await stop(service);
  await sqlOn(SERVER_URL, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}
