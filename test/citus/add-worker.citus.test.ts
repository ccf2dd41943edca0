// Adding a worker under load (docs/scaling.md "Adding a worker"): a third worker joins the cluster
// while a flash crowd of eight partners completes missions paid from one budget, and the shards are
// rebalanced onto it (rebalance_table_shards, moving shard groups with writes blocked while each
// group is copied). Every request succeeds (or is a documented 503 with its error body), the budget
// pays exactly what it holds, no claim is lost or doubled, and shards end up on the new worker.
// Needs .ci/citus.sh's cluster (CITUS_DIR, CITUS_CLUSTER_NAME, CITUS_BASE_PORT); skipped elsewhere.
import { execFileSync } from 'node:child_process';
import pg from 'pg';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAsset, createBudget, partnerCall, setupMission, startTestApp } from '../harness.ts';
import type { MissionSetup, TestContext } from '../harness.ts';
import { linkUsers } from '../link-users.ts';
import { onCitus } from './database.ts';
import { describeUnless } from '../requirements.ts';

const clusterName = process.env.CITUS_CLUSTER_NAME;
const basePort = Number(process.env.CITUS_BASE_PORT ?? 'NaN');
const canAddWorker = clusterName !== undefined && Number.isInteger(basePort) && (await onCitus());

const PARTNERS = 8;
const USERS_PER_PARTNER = 40;
// The budget pays 200 of the 320 completions: the crowd runs it dry while shards move.
const TOTAL = 200n;

/** Starts (or finds running) the cluster's third worker, a PostgreSQL 15 cluster with citus; its port. */
function startThirdWorker(): number {
  const port = basePort + 3;
  const name = `${clusterName}_3`;
  const exists = execFileSync('pg_lsclusters', ['-h'], { encoding: 'utf8' })
    .split('\n')
    .some((line) => line.split(/\s+/)[1] === name);
  if (!exists) {
    execFileSync('pg_createcluster', ['15', name, '--port', String(port), '--', '--auth=trust'], {
      stdio: 'ignore',
    });
    execFileSync('sh', [
      '-c',
      `printf "shared_preload_libraries = 'citus'\\nmax_connections = 200\\nlisten_addresses = '127.0.0.1'\\n" >> /etc/postgresql/15/${name}/postgresql.conf`,
    ]);
  }
  try {
    execFileSync('pg_ctlcluster', ['--skip-systemctl-redirect', '15', name, 'start'], { stdio: 'ignore' });
  } catch {
    // Already running (from an earlier run of this file against the same cluster): used as it is.
  }
  execFileSync('sh', [
    '-c',
    `for i in $(seq 1 60); do pg_isready -q -h 127.0.0.1 -p ${port} && exit 0; sleep 0.5; done; exit 1`,
  ]);
  return port;
}

describeUnless(
  canAddWorker ? undefined : 'it needs a Citus cluster started by .ci/citus.sh (npm run test:citus)',
)('adding a worker under load', () => {
  const complete = (setup: MissionSetup, partnerUid: string) =>
    partnerCall(ctx, setup, {
      method: 'POST',
      url: '/v1/achieve',
      body: { partnerUid, missionKey: setup.missionKey, completed: true },
    });
  let ctx: TestContext;
  let setups: MissionSetup[];
  let budgetId: string;
  let newPort: number;

  beforeAll(async () => {
    ctx = await startTestApp();
    const assetId = await createAsset(ctx, { symbol: 'PT', name: 'Point', decimals: 0 });
    budgetId = await createBudget(ctx, assetId, TOTAL.toString(), { stripes: 8 });
    setups = [];
    for (let p = 0; p < PARTNERS; p++) {
      const setup = await setupMission(ctx, { missionKey: `crowd-${p}`, recurrence: 'ONE_TIME' });
      const rule = await ctx.admin('PUT', `/admin/v1/missions/${setup.missionId}/reward`, {
        type: 'FIXED',
        budgetId,
        amount: '1',
      });
      expect(rule.statusCode).toBe(200);
      await linkUsers(
        ctx,
        setup.partnerId,
        Array.from({ length: USERS_PER_PARTNER }, (_, i) => `u-${i}`),
      );
      setups.push(setup);
    }
    newPort = startThirdWorker();
    const database = new URL(ctx.databaseUrl as string).pathname.slice(1);
    const admin = new pg.Client({ host: '127.0.0.1', port: newPort, user: 'postgres', database: 'postgres' });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    await admin.end();
    const worker = new pg.Client({ host: '127.0.0.1', port: newPort, user: 'postgres', database });
    await worker.connect();
    await worker.query('CREATE EXTENSION citus');
    await worker.end();
  });
  afterAll(async () => {
    if (ctx?.databaseUrl) {
      const database = new URL(ctx.databaseUrl).pathname.slice(1);
      const admin = new pg.Client({
        host: '127.0.0.1',
        port: newPort,
        user: 'postgres',
        database: 'postgres',
      });
      await admin.connect().catch(() => {});
      await ctx.close();
      await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => {});
      await admin.end().catch(() => {});
    }
  });

  it('rebalances onto a third worker while the crowd runs: no failure, nothing lost or doubled', async () => {
    const control = new pg.Client({ connectionString: ctx.databaseUrl });
    await control.connect();
    let answers: Array<{ status: number; body: string; setup: MissionSetup; partnerUid: string }> = [];
    let rebalanceRuns = 0;
    try {
      const load = (async () => {
        // Waves of concurrent completions, one user of every partner per request, until all have reported.
        for (let i = 0; i < USERS_PER_PARTNER; i += 4) {
          const wave = setups.flatMap((setup) =>
            [i, i + 1, i + 2, i + 3].map(async (n) => {
              const r = await complete(setup, `u-${n}`);
              return { status: r.statusCode, body: r.body, setup, partnerUid: `u-${n}` };
            }),
          );
          answers = answers.concat(await Promise.all(wave));
        }
      })();
      const rebalance = (async () => {
        await control.query(`SELECT citus_add_node('127.0.0.1', $1)`, [newPort]);
        // The rebalance in this session (citus_rebalance_start runs the same moves as background
        // jobs, which need free background worker slots on the coordinator). PostgreSQL's or
        // Citus's deadlock detection may cancel it: its first step copies the reference tables to
        // the new worker, which waits for a completion writing claims while that completion waits
        // for the copy; a later move may wait for a shard a completion holds while the completion
        // waits for a lock held by another whose write waits for the shard being moved. The
        // operator runs it again, and it goes on with what is left (docs/scaling.md "Adding a worker").
        for (;;) {
          rebalanceRuns++;
          try {
            await control.query(`SELECT rebalance_table_shards(shard_transfer_mode := 'block_writes')`);
            break;
          } catch (error) {
            if (rebalanceRuns >= 10 || !/deadlock/.test(String(error))) throw error;
          }
        }
      })();
      await Promise.all([load, rebalance]);
    } finally {
      await control.end();
    }

    expect(answers).toHaveLength(PARTNERS * USERS_PER_PARTNER);
    for (const answer of answers) {
      if (answer.status === 503) expect(JSON.parse(answer.body)).toMatchObject({ code: expect.any(Number) });
      else expect(answer.status, answer.body).toBe(200);
    }
    // A 503 (3098 SERVICE_UNAVAILABLE: the database busy while a shard group's writes were
    // blocked, docs/errors.md) is a refusal the partner's client retries; reporting again completes it.
    const refused = answers.filter((a) => a.status === 503);
    for (const answer of refused) {
      expect([3098]).toContain((JSON.parse(answer.body) as { code: number }).code);
      const again = await complete(answer.setup, answer.partnerUid);
      expect(again.statusCode, again.body).toBe(200);
    }
    console.log(
      `adding a worker: ${answers.length} reports, ${refused.length} answered 503 and retried; the rebalance ran ${rebalanceRuns} time(s)`,
    );

    const moved = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM citus_shards WHERE nodeport = ${newPort} AND table_name = 'mission_progress'::regclass`.execute(
      ctx.database.db,
    );
    expect(moved.rows[0]?.n).toBeGreaterThan(0);

    const claims = await sql<{ granted: number; rejected: number; users: number; amount: string }>`
      SELECT count(*) FILTER (WHERE status <> 'REJECTED')::int AS granted,
             count(*) FILTER (WHERE status = 'REJECTED')::int AS rejected,
             count(DISTINCT (partner_id, partner_uid))::int AS users,
             coalesce(sum(amount) FILTER (WHERE status <> 'REJECTED'), 0)::text AS amount
      FROM claims WHERE budget_id = ${budgetId}`.execute(ctx.database.db);
    const stripes = await sql<{ remaining: string }>`
      SELECT sum(remaining)::text AS remaining FROM budget_stripes WHERE budget_id = ${budgetId}`.execute(
      ctx.database.db,
    );
    const completed = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM mission_progress WHERE completed`.execute(ctx.database.db);
    expect(completed.rows[0]?.n).toBe(PARTNERS * USERS_PER_PARTNER);
    // Exactly the budget: every unit paid to one claim, one claim per report (the rest refused for
    // want of budget), none twice, nothing left.
    const reports = PARTNERS * USERS_PER_PARTNER;
    expect(claims.rows[0]).toEqual({
      granted: Number(TOTAL),
      rejected: reports - Number(TOTAL),
      users: reports,
      amount: TOTAL.toString(),
    });
    expect(stripes.rows[0]?.remaining).toBe('0');
  });
});
