// Database faults on the real processes (the service with its payout worker, and a separate worker)
// against a PostgreSQL cluster of the test's own: started before the database is up, both wait and
// come up with it; under traffic the database is restarted, its postmaster killed and every session
// terminated, and both processes stay up, answer 503 with the error body meanwhile (never 500), serve
// again within seconds, and leave DESIGN.md's invariants intact. Then a bounded start-up wait and a
// bounded shutdown.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openPostgres } from '../src/db/connection.ts';
import type { Database } from '../src/db/connection.ts';
import { createOwnPostgres, ownPostgresUnavailable, postgresBinDir } from './own-postgres.ts';
import type { OwnPostgres } from './own-postgres.ts';
import { freePort } from './free-port.ts';
import { describeUnless, firstReason, needsPostgres } from './requirements.ts';

const bin = postgresBinDir();
const cannotRun = ownPostgresUnavailable();
const OWNER = 'fault-test-owner-token-0123';
const USERS = 300;
const BUDGET_TOTAL = 150;

interface Proc {
  child: ChildProcess;
  /** JSON log lines written so far. */
  lines(): Array<Record<string, unknown>>;
  output(): string;
  exited: Promise<number | null>;
}

function startProcess(entry: string, env: Record<string, string>): Proc {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    env: { ...process.env, LOG_LEVEL: 'info', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const lines = () =>
    output
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { child, lines, output: () => output, exited };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(
  what: string,
  check: () => Promise<boolean> | boolean,
  timeoutMs: number,
): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if (await check()) return Date.now() - started;
    await sleep(50);
  }
  throw new Error(`${what}: not within ${timeoutMs} ms`);
}

// It brings its own cluster, so it needs no DATABASE_URL; it runs in the PostgreSQL pass of the suite
// (CI runs both) rather than twice.
const onPostgresPass = process.env.DATABASE_URL !== undefined && process.env.DATABASE_URL !== '';
const suite =
  cannotRun !== undefined
    ? `database faults (skipped: ${cannotRun})`
    : onPostgresPass
      ? 'database faults'
      : 'database faults (skipped on the PGlite pass: runs when DATABASE_URL is set)';

describeUnless(firstReason(cannotRun, needsPostgres('it runs on the PostgreSQL pass')))(suite, () => {
  let cluster: OwnPostgres;
  let databaseUrl: string;
  let service: Proc;
  let worker: Proc;
  let base: string;
  const CHANNEL = 'fault_test_flush';
  let listener: Database | undefined;
  let stopListening: (() => Promise<void>) | undefined;
  const heard: string[] = [];
  const listenLines: string[] = [];
  const listenLog = {
    warn: (_: object, message: string) => listenLines.push(message),
    info: (_: object, message: string) => listenLines.push(message),
  };
  /** Sends a NOTIFY from a connection of its own; true once the listener has heard it. */
  const notifyAndHear = async (payload: string) => {
    const client = new pg.Client({ connectionString: databaseUrl });
    try {
      await client.connect();
      await client.query('SELECT pg_notify($1, $2)', [CHANNEL, payload]);
    } catch {
      return false;
    } finally {
      await client.end().catch(() => {});
    }
    await sleep(100);
    return heard.includes(payload);
  };

  beforeAll(async () => {
    cluster = await createOwnPostgres(bin as string);
    databaseUrl = cluster.url;
  }, 60_000);
  afterAll(async () => {
    for (const proc of [service, worker]) {
      if (proc && proc.child.exitCode === null) {
        proc.child.kill('SIGKILL');
        await proc.exited;
      }
    }
    await stopListening?.();
    await listener?.close();
    await cluster?.destroy();
  }, 30_000);

  const alive = (proc: Proc) => proc.child.exitCode === null && proc.child.signalCode === null;
  const ready = () =>
    fetch(`${base}/readyz`).then(
      (r) => r.status === 200,
      () => false,
    );

  it('gives up after DATABASE_STARTUP_WAIT_MS with a JSON line and exit 1', async () => {
    const port = await freePort();
    const proc = startProcess('src/main.ts', {
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      DATABASE_STARTUP_WAIT_MS: '1500',
    });
    expect(await proc.exited).toBe(1);
    const lines = proc.lines();
    expect(lines.some((l) => l.msg === 'database not reachable yet; retrying')).toBe(true);
    expect(lines.at(-1)).toMatchObject({
      level: 60,
      msg: 'database not usable at start-up; exiting',
      err: { code: 'ECONNREFUSED' },
    });
    expect(proc.output()).not.toMatch(/^\s+at /m);
  }, 60_000);

  it('the service and a worker started with the database down wait for it and come up with it', async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const common = { DATABASE_URL: databaseUrl, DATABASE_STARTUP_WAIT_MS: '120000', PAYOUT_IDLE_MS: '50' };
    service = startProcess('src/main.ts', {
      ...common,
      PORT: String(port),
      ADMIN_TOKEN: OWNER,
      PAYOUT_WORKER: 'true',
      DATABASE_ACQUIRE_TIMEOUT_MS: '2000',
      SHUTDOWN_TIMEOUT_MS: '1500',
      DATABASE_LOCK_TIMEOUT_MS: '0',
      DATABASE_STATEMENT_TIMEOUT_MS: '0',
      // The test is about the database's faults: a loaded machine starves the process for a whole
      // sample at times (eventLoopDelay Infinity), and the event-loop shedding then refused the
      // set-up's admin calls (seen once in this round). Kept out of the way, as for in-process tests.
      LOAD_SHED_MAX_EVENT_LOOP_DELAY_MS: '0',
    });
    worker = startProcess('src/payout/worker-cli.ts', common);
    // The LISTEN connection for cache flushes, opened while the database is down, keeps trying.
    listener = openPostgres(databaseUrl, 1, { log: listenLog });
    stopListening = await listener.listen(CHANNEL, (payload) => heard.push(payload));
    const waiting = (proc: Proc) =>
      proc.lines().some((l) => l.msg === 'database not reachable yet; retrying');
    // Two processes loading their TypeScript through tsx on a loaded 2-core machine took more than a
    // minute to say anything once in this round: two minutes, within the test's three.
    await until('both processes log that they wait', () => waiting(service) && waiting(worker), 120_000);
    expect(alive(service) && alive(worker)).toBe(true);

    await cluster.start();
    // The service's own last lines in the failure: it may have exited (it did once, on a race in the
    // migrator that test/migrate.concurrency.test.ts now covers).
    await until('the service is ready', ready, 60_000).catch((error: Error) => {
      throw new Error(`${error.message}; the service's last output:\n${service.output().slice(-4000)}`);
    });
    await until(
      'the worker has started',
      () => worker.lines().some((l) => l.msg === 'payout worker started'),
      60_000,
    );
    expect(alive(worker)).toBe(true);
    await until('the listener hears a NOTIFY', () => notifyAndHear('after start'), 10_000);
    expect(listenLines).toContain('listen connection failed; retrying');
    expect(listenLines).toContain('listen connection restored');
  }, 300_000);

  it('restart, crash and terminated sessions under traffic: both processes survive, 503 meanwhile, invariants hold', async () => {
    expect(alive(service)).toBe(true);
    const admin = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
      const response = await fetch(`${base}/admin/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${OWNER}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (response.status >= 300)
        throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
      return (await response.json()) as T;
    };
    const partner = await admin<{ id: string }>('POST', '/partners', {
      name: 'Fault partner',
      allowedIps: ['127.0.0.1'],
    });
    const { apiKey } = await admin<{ apiKey: string }>('POST', `/partners/${partner.id}/api-keys`, {});
    const asset = await admin<{ id: string }>('POST', '/reward-assets', {
      symbol: 'PNT',
      name: 'Point',
      decimals: 0,
    });
    const promotion = await admin<{ id: string }>('POST', '/promotions', {
      partnerId: partner.id,
      type: 'COMPOSITE',
      title: 'Faults',
      timezone: 'Asia/Seoul',
      startAt: '2026-01-01T00:00:00Z',
      status: 'ACTIVE',
    });
    const group = await admin<{ id: string }>('POST', `/promotions/${promotion.id}/mission-groups`, {
      title: 'Group',
    });
    const mission = await admin<{ id: string }>('POST', `/mission-groups/${group.id}/missions`, {
      missionKey: 'survive',
      title: 'Survive',
      recurrence: 'ONE_TIME',
    });
    const budget = await admin<{ id: string }>('POST', '/budgets', {
      type: 'FIXED',
      assetId: asset.id,
      name: 'faults',
      total: String(BUDGET_TOTAL),
    });
    await admin('PUT', `/missions/${mission.id}/reward`, { type: 'FIXED', budgetId: budget.id, amount: '1' });

    // Linked users (a real login each), so that completions take budget and the workers pay them.
    const sqlClient = new pg.Client({ connectionString: databaseUrl });
    await sqlClient.connect();
    await sqlClient.query(
      `INSERT INTO platform_accounts (id, issuer, subject) SELECT 'acc_f' || i, 'test', 'f' || i FROM generate_series(1, $1) i`,
      [USERS],
    );
    await sqlClient.query(
      `INSERT INTO user_mappings (partner_id, partner_uid, account_id, region) SELECT $1, 'u' || i, 'acc_f' || i, 'KR' FROM generate_series(1, $2) i`,
      [partner.id, USERS],
    );
    await sqlClient.end();

    // Bounded traffic: a few loops of reports (retries of the same users included), recording answers.
    const answers: Array<{ status: number; body: string; retryAfter: string | null; uid: string }> = [];
    let driving = true;
    const loop = async () => {
      for (let i = 0; driving && i < 5000; i++) {
        const uid = `u${1 + Math.floor(Math.random() * USERS)}`;
        try {
          const response = await fetch(`${base}/v1/achieve`, {
            method: 'POST',
            headers: { 'x-partner-id': partner.id, 'x-api-key': apiKey, 'content-type': 'application/json' },
            body: JSON.stringify({ partnerUid: uid, missionKey: 'survive', completed: true }),
            signal: AbortSignal.timeout(15_000),
          });
          answers.push({
            status: response.status,
            body: await response.text(),
            retryAfter: response.headers.get('retry-after'),
            uid,
          });
        } catch (error) {
          answers.push({ status: 0, body: String(error), retryAfter: null, uid });
        }
        await sleep(5);
      }
    };
    const traffic = Promise.all(Array.from({ length: 6 }, loop));

    const servedAgainWithin: Record<string, number> = {};
    const fault = async (name: string, inject: () => Promise<void>) => {
      await sleep(700);
      await inject();
      // Once the database is back, the service answers again within a few seconds.
      servedAgainWithin[name] = await until(`ready after ${name}`, ready, 30_000);
      expect(alive(service), `service alive after ${name}`).toBe(true);
      expect(alive(worker), `worker alive after ${name}`).toBe(true);
    };
    await fault('restart', () => cluster.restart());
    await fault('postmaster SIGKILL', async () => {
      await cluster.killPostmaster();
      await sleep(800); // an outage the service must answer with 503
      await cluster.start();
    });
    await fault('pg_terminate_backend', async () => {
      expect(await cluster.terminateBackends()).toBeGreaterThan(0);
    });
    await sleep(700);
    // Traffic goes on until more than 50 reports were answered 200 (at most a minute), so that the
    // invariants below are checked against real work: on a loaded machine a fixed pause left too few
    // (27 once in this round).
    await until(
      'more than 50 reports answered 200',
      () => answers.filter((a) => a.status === 200).length > 50,
      60_000,
    );
    driving = false;
    await traffic;

    expect(alive(service) && alive(worker)).toBe(true);
    await until('the listener hears a NOTIFY again', () => notifyAndHear('after faults'), 10_000);
    expect(listenLines).toContain('listen connection lost; reconnecting');
    // Measured about 0.1 s on a quiet machine. The bound is a hundred times that, for a loaded CI
    // machine; what it catches is a service that stays unready for many seconds after the database
    // is back (dead pool connections kept until an idle timeout, a probe stuck on a dead socket).
    for (const ms of Object.values(servedAgainWithin)) expect(ms).toBeLessThan(10_000);
    // Every answer is a 200 or a retryable 503 with the error body; never a 500 or a dropped connection.
    const unexpected = answers.filter((a) => a.status !== 200 && a.status !== 503);
    expect(unexpected.slice(0, 5)).toEqual([]);
    const unavailable = answers.filter((a) => a.status === 503);
    expect(unavailable.length).toBeGreaterThan(0);
    for (const a of unavailable) {
      expect(JSON.parse(a.body)).toMatchObject({ code: 3098, name: 'SERVICE_UNAVAILABLE' });
      expect(a.retryAfter).toBe('1');
    }
    expect(answers.filter((a) => a.status === 200).length).toBeGreaterThan(50);

    // The workers finish paying, then the invariants of DESIGN.md hold.
    const check = new pg.Client({ connectionString: databaseUrl });
    await check.connect();
    try {
      const pending = async () =>
        (
          await check.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM claims WHERE status IN ('RESERVED', 'REQUESTED')`,
          )
        ).rows[0]?.n;
      await until('every claim is paid', async () => (await pending()) === 0, 20_000);
      // 1. Never overspent: live claims plus what the stripes hold is exactly the total.
      const money = await check.query<{ claimed: string; remaining: string }>(
        `SELECT (SELECT coalesce(sum(amount), 0)::text FROM claims WHERE budget_id = $1 AND status <> 'REJECTED') AS claimed,
                (SELECT sum(remaining)::text FROM budget_stripes WHERE budget_id = $1) AS remaining`,
        [budget.id],
      );
      const { claimed, remaining } = money.rows[0] as { claimed: string; remaining: string };
      expect(BigInt(claimed)).toBeLessThanOrEqual(BigInt(BUDGET_TOTAL));
      expect(BigInt(claimed) + BigInt(remaining)).toBe(BigInt(BUDGET_TOTAL));
      // 2. At most one claim per (user, mission, period).
      const doubled = await check.query(
        `SELECT partner_uid FROM claims GROUP BY partner_id, partner_uid, source, source_id, period_key HAVING count(*) > 1`,
      );
      expect(doubled.rows).toEqual([]);
      // 5. Every SUCCEEDED claim has exactly one ledger transfer, and nothing else has one.
      const mismatched = await check.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM claims c
         WHERE (c.status = 'SUCCEEDED') <> ((SELECT count(*) FROM ledger_transfers t WHERE t.claim_id = c.id) = 1)
            OR (SELECT count(*) FROM ledger_transfers t WHERE t.claim_id = c.id) > 1`,
      );
      expect(mismatched.rows[0]?.n).toBe(0);
      const ledger = await check.query<{ s: string | null }>(
        `SELECT sum(amount)::text AS s FROM ledger_entries`,
      );
      expect(ledger.rows[0]?.s ?? '0').toBe('0');
      // 6. A 200 means committed: every user answered 200 has a completed progress record.
      const answered = [...new Set(answers.filter((a) => a.status === 200).map((a) => a.uid))];
      const recorded = await check.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM mission_progress WHERE completed AND partner_uid = ANY($1::text[])`,
        [answered],
      );
      expect(recorded.rows[0]?.n).toBe(answered.length);
    } finally {
      await check.end();
    }
  }, 240_000);

  it('shutdown is bounded: with a request stuck on a lock, SIGTERM exits after SHUTDOWN_TIMEOUT_MS, logged', async () => {
    expect(alive(service)).toBe(true);
    const locker = new pg.Client({ connectionString: databaseUrl });
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE admin_credentials, partners IN ACCESS EXCLUSIVE MODE');
    try {
      // The service runs without lock or statement timeouts here, so this request waits for ever.
      const stuck = fetch(`${base}/admin/v1/partners`, {
        headers: { authorization: `Bearer ${OWNER}` },
      }).catch(() => undefined);
      await sleep(300);
      const signalled = Date.now();
      service.child.kill('SIGTERM');
      expect(await service.exited).toBe(1);
      // SHUTDOWN_TIMEOUT_MS is 1.5 s; without the bound the process would wait for ever (the lock is
      // held until this test releases it), so 15 s tells the two apart with room for a loaded machine.
      expect(Date.now() - signalled).toBeLessThan(15_000);
      expect(service.lines().some((l) => l.msg === 'shutdown timed out; exiting anyway')).toBe(true);
      await stuck;
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
  }, 30_000);
});
