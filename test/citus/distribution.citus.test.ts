// The service on a Citus cluster (docs/scaling.md "On Citus"): the migrations distribute the
// partner-scoped tables on partner_id in one co-location group and make the shared ones reference
// tables; the partner API works through the coordinator; a partner's rows live on the worker its
// shard is placed on; the hot statements are routed to one shard. Needs DATABASE_URL naming a
// Citus coordinator with two workers (.ci/citus.sh); skipped with its reason elsewhere.
import pg from 'pg';
import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAccount, partnerCall, setupMission, startTestApp } from '../harness.ts';
import type { MissionSetup, TestContext } from '../harness.ts';
import { onCitus } from './database.ts';
import { citusLayout } from '../../src/db/citus.ts';
import { describeUnless } from '../requirements.ts';
import { runPayoutBatch } from '../../src/payout/worker.ts';
import { ledgerProvider } from '../../src/payout/ledger.ts';
import { answeredClaimsValues } from '../../src/idempotency/answered-claims-store.ts';
import { linkedAmongStatement } from '../../src/linking/store.ts';
import { progressValuesUpsert } from '../../src/progress/store.ts';
import { grantFactsStatement } from '../../src/claims/grant-store.ts';

const PARTNER_TABLES = [
  'mission_progress',
  'user_mappings',
  'user_streaks',
  'mapping_tokens',
  'deferred_rewards',
  'completion_rates',
  'completion_alarms',
  // A claim's history and the ledger (0040): written on the partner's shard alone.
  'claim_events',
  'ledger_transfers',
  'ledger_entries',
  // A budget's stripes (0041): a partner's, and the pool's under partner_id ''.
  'budget_stripes',
  // Claims (0042): a completion's claim, its history and its take on one shard.
  'claims',
  // Idempotency keys (0043): a keyed completion's key on the partner's shard.
  'idempotency_keys',
  // Lucky-draw tickets (0044): a completion's ticket on the partner's shard.
  'tickets',
  // Webhook messages and their attempts (0045): a completion's events on the partner's shard.
  'webhook_messages',
  'webhook_attempts',
  // The webhook outbox (0048): a statement's messages on the partner's shard, beside the messages.
  'webhook_outbox',
];
// Distributed on another column whose value is the partner's id: a partner's idempotency keys are
// scoped by the partner's id (0043).
const PARTNER_COLUMN: Record<string, string> = { idempotency_keys: 'scope' };
// Logins, sessions and wallet challenges (0046): each distributed on its own key, in a co-location
// group of its own, found by that key alone.
const OWN_KEY_TABLES: Record<string, string> = {
  login_states: 'state_hash',
  user_sessions: 'id_hash',
  siwe_challenges: 'nonce',
};
const SHARED_TABLES = ['partners', 'reward_assets', 'chain_networks', 'admin_credentials', 'budgets'];

describeUnless((await onCitus()) ? 'it checks plain PostgreSQL and PGlite, not a Citus cluster' : undefined)(
  'without Citus',
  () => {
    it('detects no cluster and distributes nothing (plain PostgreSQL or PGlite)', async () => {
      const ctx = await startTestApp();
      try {
        expect(await citusLayout(ctx.database.db)).toBeUndefined();
        // The helper functions of migration 0032 exist and do nothing.
        await sql`SELECT mrs_distribute_by_partner('mission_progress'), mrs_make_reference('partners')`.execute(
          ctx.database.db,
        );
        const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM mission_progress`.execute(
          ctx.database.db,
        );
        expect(rows[0]?.n).toBe(0);
      } finally {
        await ctx.close();
      }
    });
  },
);

describeUnless(
  (await onCitus()) ? undefined : 'it needs a Citus cluster started by .ci/citus.sh (npm run test:citus)',
)('the service on Citus, sharded by partner', () => {
  let ctx: TestContext;
  let setup: MissionSetup;

  beforeAll(async () => {
    ctx = await startTestApp({ captureLogs: true });
    setup = await setupMission(ctx, { missionKey: 'daily-login', recurrence: 'DAILY' });
  });
  afterAll(async () => {
    await ctx?.close();
  });

  it('distributes the partner-scoped tables on partner_id, co-located, and the shared ones as reference tables', async () => {
    const { rows } = await sql<{ name: string; method: string; column: string | null; colocation: number }>`
      SELECT logicalrelid::text AS name, partmethod AS method,
             CASE WHEN partmethod = 'h' THEN column_to_column_name(logicalrelid, partkey) END AS column,
             colocationid AS colocation
      FROM pg_dist_partition`.execute(ctx.database.db);
    const byName = new Map(rows.map((row) => [row.name, row]));
    for (const table of PARTNER_TABLES) {
      expect(byName.get(table), table).toMatchObject({
        method: 'h',
        column: PARTNER_COLUMN[table] ?? 'partner_id',
      });
    }
    expect(new Set(PARTNER_TABLES.map((t) => byName.get(t)?.colocation)).size).toBe(1);
    const partnerGroup = byName.get('mission_progress')?.colocation;
    const ownGroups = Object.entries(OWN_KEY_TABLES).map(([table, column]) => {
      expect(byName.get(table), table).toMatchObject({ method: 'h', column });
      return byName.get(table)?.colocation;
    });
    expect(new Set([partnerGroup, ...ownGroups]).size).toBe(1 + ownGroups.length);
    for (const table of SHARED_TABLES) expect(byName.get(table), table).toMatchObject({ method: 'n' });
    expect(await citusLayout(ctx.database.db)).toEqual({
      workers: 2,
      distributedTables: rows.filter((row) => row.method === 'h').length,
      referenceTables: expect.any(Number),
    });
  });

  it('answers the partner API through the coordinator, and keeps a partner’s rows on the worker of its shard', async () => {
    const accountId = await createAccount(ctx, { link: { partnerId: setup.partnerId, partnerUid: 'u-1' } });
    const achieve = await partnerCall(ctx, setup, {
      method: 'POST',
      url: '/v1/achieve',
      body: { partnerUid: 'u-1', missionKey: setup.missionKey, completed: true },
    });
    if (achieve.statusCode !== 200)
      console.log(JSON.stringify(ctx.logs.filter((l) => (l.level as number) >= 50)).slice(0, 3000));
    expect(achieve.statusCode).toBe(200);
    const check = await partnerCall(ctx, setup, { method: 'GET', url: '/v1/mission-users?partnerUid=u-1' });
    expect(check.statusCode).toBe(200);

    // Where the partner's shard of mission_progress is placed, and the shard's own table there.
    const { rows } = await sql<{ shard: string; host: string; port: number }>`
      SELECT s.shard_name AS shard, s.nodename AS host, s.nodeport AS port
      FROM citus_shards s
      WHERE s.table_name = 'mission_progress'::regclass
        AND s.shardid = get_shard_id_for_distribution_column('mission_progress', ${setup.partnerId}::text)`.execute(
      ctx.database.db,
    );
    const placement = rows[0];
    if (!placement) throw new Error('no placement for the partner');
    const workers = await sql<{ host: string; port: number }>`
      SELECT nodename AS host, nodeport AS port FROM pg_dist_node WHERE groupid <> 0`.execute(
      ctx.database.db,
    );
    expect(workers.rows).toHaveLength(2);
    const database = new URL(ctx.databaseUrl as string).pathname.slice(1);
    for (const worker of workers.rows) {
      const client = new pg.Client({ host: worker.host, port: worker.port, user: 'postgres', database });
      await client.connect();
      try {
        const exists = await client.query(`SELECT to_regclass($1) IS NOT NULL AS here`, [placement.shard]);
        const onThisWorker = worker.host === placement.host && worker.port === placement.port;
        expect(exists.rows[0].here).toBe(onThisWorker);
        if (onThisWorker) {
          const found = await client.query(
            `SELECT partner_uid, completed FROM ${placement.shard} WHERE partner_id = $1`,
            [setup.partnerId],
          );
          expect(found.rows).toEqual([{ partner_uid: 'u-1', completed: true }]);
        }
      } finally {
        await client.end();
      }
    }
    expect(accountId).toMatch(/^acc_/);
  });

  it('writes one audit row per operator write, from the coordinator’s copy of a reference table', async () => {
    const { rows } = await sql<{ action: string; n: number }>`
      SELECT action, count(*)::int AS n FROM audit_events
      WHERE entity_type = 'partner' AND entity_id = ${setup.partnerId} GROUP BY action`.execute(
      ctx.database.db,
    );
    expect(rows).toEqual([{ action: 'create', n: 1 }]);
    const mission = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM audit_events WHERE entity_type = 'mission' AND entity_id = ${setup.missionId}`.execute(
      ctx.database.db,
    );
    expect(mission.rows[0]?.n).toBe(1);
  });

  it('keeps a paid claim, its history, ledger rows, budget stripe and key on the worker of its partner’s shard (0040-0043)', async () => {
    const assetId = (
      await ctx.admin('POST', '/admin/v1/reward-assets', { symbol: 'CT', name: 'Citus', decimals: 0 })
    ).json().id;
    const budgetId = (
      await ctx.admin('POST', '/admin/v1/budgets', { type: 'FIXED', assetId, name: 'citus', total: '10' })
    ).json().id;
    const reward = await ctx.admin('PUT', `/admin/v1/missions/${setup.missionId}/reward`, {
      type: 'FIXED',
      budgetId,
      amount: '1',
    });
    expect(reward.statusCode).toBeLessThan(300);
    await createAccount(ctx, { link: { partnerId: setup.partnerId, partnerUid: 'u-paid' } });
    const achieve = await partnerCall(ctx, setup, {
      method: 'POST',
      url: '/v1/achieve',
      body: { partnerUid: 'u-paid', missionKey: setup.missionKey, completed: true },
      headers: { 'idempotency-key': 'paid-once' },
    });
    expect(achieve.statusCode).toBe(200);
    expect(await runPayoutBatch(ctx.database.db, ctx.clock, ledgerProvider)).toBe(1);

    // Each table's shard of the partner, the worker it is placed on, and the partner's rows there:
    // the history (created, requested, paid), the transfer and its two entries, and the stripe
    // the completion took from (the partner's first completion refilled it from the pool), and the
    // request's idempotency key, written in the completion's statement.
    const expected = {
      idempotency_keys: 1,
      claims: 1,
      claim_events: 3,
      ledger_transfers: 1,
      ledger_entries: 2,
      budget_stripes: 1,
    };
    const database = new URL(ctx.databaseUrl as string).pathname.slice(1);
    for (const [table, count] of Object.entries(expected)) {
      const { rows } = await sql<{ shard: string; host: string; port: number }>`
        SELECT s.shard_name AS shard, s.nodename AS host, s.nodeport AS port
        FROM citus_shards s
        WHERE s.table_name = ${table}::regclass
          AND s.shardid = get_shard_id_for_distribution_column(${table}::regclass, ${setup.partnerId}::text)`.execute(
        ctx.database.db,
      );
      // One placement, on one worker (a reference table's shard has one on every node).
      expect(rows, table).toHaveLength(1);
      const placement = rows[0];
      if (!placement) throw new Error(`no placement of ${table} for the partner`);
      const client = new pg.Client({
        host: placement.host,
        port: placement.port,
        user: 'postgres',
        database,
      });
      await client.connect();
      try {
        const found = await client.query(
          `SELECT count(*)::int AS n FROM ${placement.shard} WHERE ${PARTNER_COLUMN[table] ?? 'partner_id'} = $1`,
          [setup.partnerId],
        );
        expect(found.rows[0].n, table).toBe(count);
      } finally {
        await client.end();
      }
    }
  });

  it('routes the hot partner statements to one shard', async () => {
    const plans = [
      sql`EXPLAIN SELECT account_id FROM user_mappings WHERE partner_id = ${setup.partnerId} AND partner_uid = 'u-1'`,
      sql`EXPLAIN SELECT completed FROM mission_progress
          WHERE partner_id = ${setup.partnerId} AND partner_uid = 'u-1' AND mission_id = ${setup.missionId}`,
      // A claim's history (src/claims/service.ts claimHistory) and a partner's ledger (0040).
      sql`EXPLAIN SELECT * FROM claim_events WHERE partner_id = ${setup.partnerId} AND claim_id = 'clm_x' ORDER BY id`,
      sql`EXPLAIN SELECT e.amount FROM ledger_transfers t JOIN ledger_entries e ON e.transfer_id = t.id AND e.partner_id = t.partner_id
          WHERE t.partner_id = ${setup.partnerId} AND t.claim_id = 'clm_x'`,
      // A user's claim of a mission for a period (0042, the unique key a grant's insert meets).
      sql`EXPLAIN SELECT id FROM claims WHERE partner_id = ${setup.partnerId} AND partner_uid = 'u-1'
          AND source = 'MISSION' AND source_id = ${setup.missionId} AND period_key = 'ONCE'`,
      // A completion's take from its partner's stripes of a budget (0041, src/budgets/reservation-store.ts).
      sql`EXPLAIN SELECT stripe, remaining FROM budget_stripes
          WHERE budget_id = 'bud_x' AND partner_id = ${setup.partnerId} AND remaining >= 1
          ORDER BY stripe LIMIT 1 FOR UPDATE SKIP LOCKED`,
      // A keyed request's key (0043, src/idempotency/store.ts findKey).
      sql`EXPLAIN SELECT state FROM idempotency_keys WHERE scope = ${setup.partnerId} AND key = 'k-1'`,
      // A login's state at the callback, a session on every mission-page request, a wallet
      // challenge used at the bind (0046, src/linking/store.ts, src/sessions/store.ts,
      // src/chain/wallet-store.ts).
      sql`EXPLAIN DELETE FROM login_states WHERE state_hash = 'h-1' RETURNING *`,
      sql`EXPLAIN SELECT account_id, expires_at FROM user_sessions WHERE id_hash = 'h-1'`,
      sql`EXPLAIN UPDATE siwe_challenges SET used_at = now() WHERE nonce = 'n-1' AND used_at IS NULL RETURNING nonce`,
    ];
    for (const plan of plans) {
      const { rows } = await plan.execute(ctx.database.db);
      const text = rows.map((row) => Object.values(row as Record<string, string>)[0]).join('\n');
      expect(text).toContain('Task Count: 1');
    }
  });

  it('reads one shard in the batch statements of link checks, progress and completions', async () => {
    // Their rows come from the batch's arrays: Citus prunes shards only by constants on partner_id,
    // and without them read every shard and sent the whole user_mappings table of a LEFT JOIN's
    // inner side to the coordinator at every batch (docs/scaling.md "Where the crowd's cost went").
    const db = ctx.database.db;
    const now = new Date();
    const users = ['u-1', 'u-2', 'u-3'].map((partnerUid) => ({ partnerId: setup.partnerId, partnerUid }));
    const reports = users.map((user, i) => ({
      ...user,
      missionId: setup.missionId,
      periodKey: '2026-11-28',
      completed: true,
      target: null,
      defaultTarget: null,
      current: null,
      now,
      completionMarker: `marker-${i}`,
      promotionId: setup.promotionId,
      groupId: setup.groupId,
    }));
    const statements = {
      'link check': linkedAmongStatement(db, users),
      'grants of users who may not have linked': grantFactsStatement(
        db,
        users.map((user) => ({
          ...user,
          budget: { id: 'bud_x', asset_id: 'ast_x', stripes: 4 },
          amount: 10n ** 18n,
          promotionId: setup.promotionId,
          source: 'MISSION' as const,
          sourceId: setup.missionId,
          periodKey: '2026-11-28',
          now,
        })),
        ['clm_1', 'clm_2', 'clm_3'],
      ),
    };
    // The routed statements of a batch (a completion's records, its idempotency keys): one task
    // each, no sub-plan through the coordinator.
    const routed = {
      'the records': progressValuesUpsert(reports, false).compile(db),
      'the idempotency keys': answeredClaimsValues(
        ['k-1', 'k-2'].map((key) => ({
          scope: setup.partnerId,
          key,
          fingerprint: 'f',
          owner: 'o',
          now,
          expiresAt: new Date(now.getTime() + 86_400_000),
          answer: { status: 200, headers: {}, body: '' },
        })),
      ).compile(db),
    };
    for (const [name, statement] of Object.entries(routed)) {
      const { rows } = await db.executeQuery(
        CompiledQuery.raw(`EXPLAIN ${statement.sql}`, [...statement.parameters]),
      );
      const plan = rows.map((row) => Object.values(row as Record<string, string>)[0]).join('\n');
      expect(plan, name).toContain('Task Count: 1');
      expect(plan, name).not.toContain('Subplan');
    }
    for (const [name, statement] of Object.entries(statements)) {
      const { rows } = await db.executeQuery(
        CompiledQuery.raw(`EXPLAIN ${statement.sql}`, [...statement.parameters]),
      );
      const plan = rows.map((row) => Object.values(row as Record<string, string>)[0]).join('\n');
      const taskCounts = [...plan.matchAll(/Task Count: (\d+)/g)].map((match) => Number(match[1]));
      expect(taskCounts.length, name).toBeGreaterThan(0);
      expect(
        taskCounts.every((count) => count === 1),
        `${name}: ${taskCounts.join(', ')}`,
      ).toBe(true);
    }
  });
});
