// `npm run bench:chain`: claims confirmed per second by the chain payout outbox on the embedded dev
// chain, on a fresh PostgreSQL database (BENCH_DATABASE_URL) or PGlite, with the on-chain sum
// checked against the amounts paid. Bounded: BENCH_CHAIN_CLAIMS claims (2,000), at most 120 s.
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startDevChain } from '../src/chain/dev-chain.ts';
import { createChainPayout } from '../src/chain/outbox.ts';
import { openPGlite, openPostgres } from '../src/db/connection.ts';
import type { Database } from '../src/db/connection.ts';
import { migrate } from '../src/db/migrate.ts';
import { systemClock } from '../src/domain/clock.ts';
import { accountsWithWallets, fundedChainBudget } from './chain-setup.ts';

const CLAIMS = Number(process.env.BENCH_CHAIN_CLAIMS ?? 2000);
const BLOCK_MS = Number(process.env.BENCH_CHAIN_BLOCK_MS ?? 0);
const SERVER_URL = process.env.BENCH_DATABASE_URL;
const DEADLINE_MS = 120_000;

async function openBenchDatabase(): Promise<{ database: Database; drop(): Promise<void> }> {
  if (!SERVER_URL) {
    const database = await openPGlite(undefined);
    return { database, drop: () => database.close() };
  }
  const name = `mrs_bench_chain_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: SERVER_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(SERVER_URL);
  url.pathname = `/${name}`;
  const database = openPostgres(url.toString(), 8);
  return {
    database,
    async drop() {
      await database.close();
      const client = new pg.Client({ connectionString: SERVER_URL });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

const dataDir = path.join(tmpdir(), 'mrs-chain-bench');
mkdirSync(dataDir, { recursive: true });
const [chain, { database, drop }] = await Promise.all([
  startDevChain({ dataDir, blockIntervalMs: BLOCK_MS }),
  openBenchDatabase(),
]);
try {
  await migrate(database);
  const db = database.db;
  const { kek, token, budget } = await fundedChainBudget(db, chain, '1000000000');
  const users = await accountsWithWallets(db, chain.chainId, 'bench', CLAIMS);
  const claims = users.map((u, i) => ({
    claimId: `clm_bench_${i}`,
    budgetId: budget.id,
    accountId: u.accountId,
    amount: String(1 + (i % 7)),
  }));
  const payout = createChainPayout({ db, clock: systemClock, kek });
  let confirmed = 0;
  const started = performance.now();
  for (let i = 0; i < claims.length; i += 1000) await payout.payClaims(claims.slice(i, i + 1000));
  const signedMs = performance.now() - started;
  while (confirmed < CLAIMS && performance.now() - started < DEADLINE_MS) {
    confirmed += (await payout.runCycle()).filter((o) => o.status === 'SUCCEEDED').length;
    if (BLOCK_MS > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(BLOCK_MS, 50)));
  }
  const seconds = (performance.now() - started) / 1000;
  let onChain = 0n;
  for (const user of users) onChain += await chain.tokenBalance(token, user.address);
  const expected = claims.reduce((sum, c) => sum + BigInt(c.amount), 0n);
  const result = {
    scenario: `chain payout, ${CLAIMS} token claims, ${BLOCK_MS ? `${BLOCK_MS} ms blocks` : 'automine'}, ${SERVER_URL ? 'PostgreSQL' : 'PGlite'}`,
    confirmed,
    seconds: Number(seconds.toFixed(2)),
    signedAndBroadcastSeconds: Number((signedMs / 1000).toFixed(2)),
    confirmedPerSecond: Math.round(confirmed / seconds),
    onChainSumMatches: onChain === expected,
  };
  console.log(JSON.stringify(result, null, 2));
  if (!result.onChainSumMatches || confirmed !== CLAIMS) process.exitCode = 1;
} finally {
  await chain.stop();
  await drop();
}
