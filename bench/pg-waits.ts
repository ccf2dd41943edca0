// BENCH_PG_WAITS=1: what the bench database's PostgreSQL backends were doing during a load, looked
// up in pg_stat_activity every BENCH_PG_WAITS_MS (default 10) by a process of its own, so that
// the looks share no thread with the load generator: on a CPU (or waiting for one), waiting for the
// WAL flush of a commit, on a lock, on the service inside a transaction, on data files. The CPU
// counts of /proc say how much each part cost; this says where a batch's time goes that is not CPU
// (docs/performance.md, "Eighteenth round"). The sampler's own backend is a postgres process, so
// with it on, PostgreSQL's CPU a request reads a little higher: use it for the profile, not the rate.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

export const PG_WAITS = process.env.BENCH_PG_WAITS === '1';
const INTERVAL_MS = Number(process.env.BENCH_PG_WAITS_MS ?? 10);

/** Backend observations, by what they were doing and by statement (the service names its prepared ones). */
export interface PgWaits {
  looks: number;
  /** Observations of an active backend (or one idle in a transaction), by kind, then by statement. */
  byKind: Record<string, number>;
  byStatement: Record<string, Record<string, number>>;
}

/** A backend's state as one of a few kinds that say what would make it faster. */
export function kindOf(state: string, type: string | null, event: string | null): string {
  if (state !== 'active') return 'the service'; // idle in transaction: the next statement is the service's to send
  if (type === null) return 'CPU';
  if (event === 'WALSync' || event === 'WALWrite' || event === 'WALInitSync' || event === 'WALInitWrite')
    return 'WAL flush'; // IO/WALSync, IO/WALWrite, LWLock/WALWrite: its own commit's flush or another's
  if (type === 'Lock') return 'locks';
  if (type === 'Client') return 'the service';
  if (type === 'IO') return 'data files';
  return 'other';
}

const LOOK = `
  SELECT state, wait_event_type AS type, wait_event AS event,
         coalesce(substring(query from '/\\* prepared:([a-z_0-9]+)'), left(regexp_replace(query, '\\s+', ' ', 'g'), 24)) AS statement
    FROM pg_stat_activity
   WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()
     AND state IN ('active', 'idle in transaction')`;

/** The sampler's own process: looks until SIGTERM, then prints its counts as JSON and exits. */
async function sample(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const waits: PgWaits = { looks: 0, byKind: {}, byStatement: {} };
  let stopped = false;
  process.once('SIGTERM', () => (stopped = true));
  process.stdout.write('ready\n');
  while (!stopped) {
    const { rows } = await client.query<{
      state: string;
      type: string | null;
      event: string | null;
      statement: string;
    }>(LOOK);
    waits.looks += 1;
    for (const row of rows) {
      const kind = kindOf(row.state, row.type, row.event);
      waits.byKind[kind] = (waits.byKind[kind] ?? 0) + 1;
      const statement = (waits.byStatement[row.statement] ??= {});
      statement[kind] = (statement[kind] ?? 0) + 1;
    }
    await new Promise((r) => setTimeout(r, INTERVAL_MS));
  }
  await client.end();
  process.stdout.write(`${JSON.stringify(waits)}\n`);
}

/** Starts the sampler on the database `url`; stop() answers what it saw. */
export async function startPgWaits(url: string): Promise<{ stop(): Promise<PgWaits> }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(import.meta.url), '--sample', url],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let out = '';
  child.stdout.setEncoding('utf8');
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
      if (out.startsWith('ready\n')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the PostgreSQL wait sampler exited (${code})`)));
  });
  return {
    async stop() {
      // A sampler that died early (its database gone) has no exit left to wait for.
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      return JSON.parse(out.slice('ready\n'.length)) as PgWaits;
    },
  };
}

const percent = (n: number, of: number) => `${((100 * n) / Math.max(1, of)).toFixed(0)}%`;
const sum = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);
const kinds = (counts: Record<string, number>) => {
  const total = sum(counts);
  return Object.entries(counts)
    .sort((a, b) => b[1] - a[1])
    .map(([kind, n]) => `${kind} ${percent(n, total)}`)
    .join(', ');
};

/** One line: the share of each kind, the backends busy on average, the three busiest statements. */
export function describePgWaits(waits: PgWaits): string {
  const total = sum(waits.byKind);
  const statements = Object.entries(waits.byStatement)
    .map(([name, counts]) => ({ name, counts, n: sum(counts) }))
    .sort((a, b) => b.n - a.n)
    .slice(0, 3)
    .map((s) => `${s.name} ${percent(s.n, total)} (${kinds(s.counts)})`);
  return `${waits.looks} looks, ${(total / Math.max(1, waits.looks)).toFixed(1)} backends busy on average: ${kinds(waits.byKind)}; by statement: ${statements.join('; ')}`;
}

if (process.argv[2] === '--sample') await sample(process.argv[3] as string);
