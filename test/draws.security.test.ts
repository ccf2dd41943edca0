// A lucky draw's seed is secret until the draw runs (issue #28 item 1): no answer, audit event, log
// line or metric holds it before; and whoever runs the draw cannot steer it by choosing the moment:
// the ticket set closes at the scheduled time fixed at creation, the draw cannot run before it, and
// a budget's draws run in scheduled order.
import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPGlite, openPostgres } from '../src/db/connection.ts';
import type { Database } from '../src/db/connection.ts';
import { listMigrations, migrate } from '../src/db/migrate.ts';
import { partnerCall, setupMission, startTestApp } from './harness.ts';
import type { MissionSetup, TestContext } from './harness.ts';
import { linkUsers } from './link-users.ts';

const METRICS_TOKEN = 'metrics-token-0123456789';
let ctx: TestContext;
let setup: MissionSetup;
let budgetId: string;
let viewer: string;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

beforeAll(async () => {
  ctx = await startTestApp({
    now: '2026-11-22T03:00:00Z',
    captureLogs: true,
    env: { METRICS_TOKEN, METRICS_DB_CACHE_MS: '0' },
  });
  setup = await setupMission(ctx, { missionKey: 'lucky', recurrence: 'DAILY' });
  const assetId = (
    await ctx.admin('POST', '/admin/v1/reward-assets', { symbol: 'GEM', name: 'Gems', decimals: 0 })
  ).json().id;
  budgetId = (
    await ctx.admin('POST', '/admin/v1/budgets', { type: 'LUCKY_DRAW', assetId, name: 'Gems', total: '100' })
  ).json().id;
  await ctx.admin('PUT', `/admin/v1/missions/${setup.missionId}/reward`, { type: 'LUCKY_DRAW', budgetId });
  viewer = (await ctx.admin('POST', '/admin/v1/admin-credentials', { name: 'viewer', role: 'VIEWER' })).json()
    .secret;
});
afterAll(async () => {
  await ctx?.close();
});

async function complete(partnerUids: string[]) {
  for (const partnerUid of partnerUids) {
    const answer = await partnerCall(ctx, setup, {
      method: 'POST',
      url: '/v1/achieve',
      body: { partnerUid, missionKey: 'lucky', completed: true },
    });
    expect(answer.statusCode, answer.body).toBe(200);
  }
}

/** Everything a VIEWER, the public, a log reader and a metrics scraper can read about the service. */
async function everythingReadable(drawId: string): Promise<string> {
  const reads = await Promise.all([
    ctx.admin('GET', '/admin/v1/audit-events?limit=500', undefined, viewer),
    ctx.admin('GET', `/admin/v1/audit-events?entityType=draw&entityId=${drawId}`, undefined, viewer),
    ctx.admin('GET', '/admin/v1/draws', undefined, viewer),
    ctx.admin('GET', `/admin/v1/draws/${drawId}`, undefined, viewer),
    ctx.app.inject({ method: 'GET', url: `/v1/draws/${drawId}` }),
    ctx.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } }),
  ]);
  for (const read of reads) expect(read.statusCode, read.body).toBe(200);
  return [...reads.map((r) => r.body), JSON.stringify(ctx.logs)].join('\n');
}

describe('the seed before the draw', () => {
  it('is in no answer, audit event, log line or metric; after the run it is public and matches', async () => {
    await linkUsers(ctx, setup.partnerId, ['s-1', 's-2', 's-3']);
    await complete(['s-1', 's-2', 's-3']);
    const created = await ctx.admin('POST', '/admin/v1/draws', {
      budgetId,
      title: 'Secret',
      prizeAmount: '1',
      winnersCount: 1,
      scheduledAt: '2026-11-22T05:00:00Z',
    });
    expect(created.statusCode, created.body).toBe(201);
    const draw = created.json<{ id: string; commitment: string }>();
    // The audit log has the draw's creation, without its seed.
    const audit = (
      await ctx.admin('GET', `/admin/v1/audit-events?entityType=draw&entityId=${draw.id}`, undefined, viewer)
    ).json<{ items: Array<{ action: string; after: Record<string, unknown> }> }>();
    expect(audit.items.map((e) => e.action)).toEqual(['create']);
    const readableBefore = await everythingReadable(draw.id);

    ctx.clock.set('2026-11-22T05:00:00Z');
    const ran = await ctx.admin('POST', `/admin/v1/draws/${draw.id}/run`);
    expect(ran.statusCode, ran.body).toBe(200);
    const seed = ran.json<{ seed: string }>().seed;
    expect(sha256(seed)).toBe(draw.commitment);
    expect((await ctx.app.inject({ method: 'GET', url: `/v1/draws/${draw.id}` })).json().seed).toBe(seed);
    // Nothing readable before the run held the seed (it would have told the winners).
    expect(readableBefore).not.toContain(seed);
  });
});

describe('the moment of the run', () => {
  it('cannot be before the scheduled time, and tickets received after it are not in the draw', async () => {
    ctx.clock.set('2026-11-23T03:00:00Z');
    await linkUsers(ctx, setup.partnerId, ['m-early-1', 'm-early-2', 'm-late-1', 'm-late-2']);
    await complete(['m-early-1', 'm-early-2']);
    const draw = (
      await ctx.admin('POST', '/admin/v1/draws', {
        budgetId,
        title: 'Closes at 04:00',
        prizeAmount: '1',
        winnersCount: 2,
        scheduledAt: '2026-11-23T04:00:00Z',
      })
    ).json<{ id: string }>();
    ctx.clock.set('2026-11-23T03:59:59Z');
    const early = await ctx.admin('POST', `/admin/v1/draws/${draw.id}/run`);
    expect(early.statusCode).toBe(409);
    expect(early.json()).toMatchObject({ code: 3508, name: 'DRAW_NOT_DUE' });
    expect(early.json().message).toContain('2026-11-23T04:00:00.000Z');
    // Nothing moved: still COMMITTED, every ticket still RECEIVED.
    expect((await ctx.admin('GET', `/admin/v1/draws/${draw.id}`)).json().status).toBe('COMMITTED');

    // Two more tickets after the close; the operator waits for them and then runs the draw.
    ctx.clock.set('2026-11-23T04:00:01Z');
    await complete(['m-late-1', 'm-late-2']);
    const ran = await ctx.admin('POST', `/admin/v1/draws/${draw.id}/run`);
    expect(ran.statusCode, ran.body).toBe(200);
    const result = ran.json<{ ticketCount: number; tickets: string[] }>();
    expect(result.ticketCount).toBe(2);
    const late = (await ctx.admin('GET', '/admin/v1/tickets?filter=RECEIVED')).json().items as Array<{
      partnerUid: string;
    }>;
    // The late tickets wait for the next draw.
    expect(late.map((t) => t.partnerUid).sort()).toEqual(['m-late-1', 'm-late-2']);
  });

  it("runs a budget's draws in scheduled order, so the run order cannot move tickets between draws", async () => {
    ctx.clock.set('2026-11-24T03:00:00Z');
    const first = (
      await ctx.admin('POST', '/admin/v1/draws', {
        budgetId,
        title: 'First',
        prizeAmount: '1',
        winnersCount: 1,
        scheduledAt: '2026-11-24T04:00:00Z',
      })
    ).json<{ id: string }>();
    const second = (
      await ctx.admin('POST', '/admin/v1/draws', {
        budgetId,
        title: 'Second',
        prizeAmount: '1',
        winnersCount: 1,
        scheduledAt: '2026-11-24T05:00:00Z',
      })
    ).json<{ id: string }>();
    ctx.clock.set('2026-11-24T06:00:00Z');
    const outOfOrder = await ctx.admin('POST', `/admin/v1/draws/${second.id}/run`);
    expect(outOfOrder.statusCode).toBe(409);
    expect(outOfOrder.json()).toMatchObject({ code: 3509, name: 'DRAW_EARLIER_PENDING' });
    expect(outOfOrder.json().message).toContain(first.id);
    expect((await ctx.admin('POST', `/admin/v1/draws/${first.id}/run`)).json().ticketCount).toBe(2);
    expect((await ctx.admin('POST', `/admin/v1/draws/${second.id}/run`)).json().ticketCount).toBe(0);
  });
});

describe('the close of the ticket set (closesAt)', () => {
  it('is fixed at creation, never in the past and not after the run; tickets after it wait even if the run is later', async () => {
    ctx.clock.set('2026-11-25T03:00:00Z');
    const draws = async () => (await ctx.admin('GET', '/admin/v1/draws?limit=500')).json().items.length;
    const count = await draws();
    const base = { budgetId, title: 'Close', prizeAmount: '1', winnersCount: 1 };
    // A close in the past (given, or the scheduled time when not given) would draw over known tickets.
    for (const [body, code, name] of [
      [
        { closesAt: '2026-11-25T02:59:59Z', scheduledAt: '2026-11-25T05:00:00Z' },
        3014,
        'DRAW_CLOSES_IN_PAST',
      ],
      [{ scheduledAt: '2026-11-25T02:00:00Z' }, 3014, 'DRAW_CLOSES_IN_PAST'],
      [
        { closesAt: '2026-11-25T05:00:00Z', scheduledAt: '2026-11-25T04:00:00Z' },
        3015,
        'DRAW_RUNS_BEFORE_CLOSE',
      ],
    ] as const) {
      const refused = await ctx.admin('POST', '/admin/v1/draws', { ...base, ...body });
      expect(refused.statusCode, refused.body).toBe(400);
      expect(refused.json()).toMatchObject({ code, name, message: expect.any(String) });
    }
    expect(await draws()).toBe(count);

    await linkUsers(ctx, setup.partnerId, ['k-1', 'k-2', 'k-3']);
    await complete(['k-1']);
    const created = await ctx.admin('POST', '/admin/v1/draws', {
      ...base,
      closesAt: '2026-11-25T04:00:00Z',
      scheduledAt: '2026-11-25T06:00:00Z',
    });
    expect(created.statusCode, created.body).toBe(201);
    const draw = created.json<{ id: string; closesAt: string; scheduledAt: string }>();
    expect(draw).toMatchObject({
      closesAt: '2026-11-25T04:00:00.000Z',
      scheduledAt: '2026-11-25T06:00:00.000Z',
    });
    // Closed but not yet scheduled: it cannot run.
    ctx.clock.set('2026-11-25T05:00:00Z');
    await complete(['k-2', 'k-3']);
    const early = await ctx.admin('POST', `/admin/v1/draws/${draw.id}/run`);
    expect(early.statusCode).toBe(409);
    expect(early.json()).toMatchObject({ code: 3508, name: 'DRAW_NOT_DUE' });
    ctx.clock.set('2026-11-25T06:00:00Z');
    const ran = await ctx.admin('POST', `/admin/v1/draws/${draw.id}/run`);
    expect(ran.statusCode, ran.body).toBe(200);
    // Only the ticket received by the close: the two after it wait for the next draw.
    expect(ran.json().ticketCount).toBe(1);
    const waiting = (await ctx.admin('GET', '/admin/v1/tickets?filter=RECEIVED')).json().items as Array<{
      partnerUid: string;
    }>;
    expect(waiting.map((t) => t.partnerUid).sort()).toEqual(['k-2', 'k-3']);
  });

  it("a draw created after another's close cannot take that one's tickets by being scheduled first", async () => {
    // The first draw closes at 04:00 and runs at 08:00; once it has closed its winners are
    // computable by whoever reads the seed (a ledger budget). A second draw created then, scheduled
    // before the first, used to run first and take its tickets: a new roll of the dice.
    ctx.clock.set('2026-11-26T03:00:00Z');
    await linkUsers(ctx, setup.partnerId, ['o-1', 'o-2']);
    await complete(['o-1', 'o-2']);
    const first = (
      await ctx.admin('POST', '/admin/v1/draws', {
        budgetId,
        title: 'Closes first',
        prizeAmount: '1',
        winnersCount: 1,
        closesAt: '2026-11-26T04:00:00Z',
        scheduledAt: '2026-11-26T08:00:00Z',
      })
    ).json<{ id: string }>();
    ctx.clock.set('2026-11-26T05:00:00Z');
    const second = await ctx.admin('POST', '/admin/v1/draws', {
      budgetId,
      title: 'Scheduled first',
      prizeAmount: '1',
      winnersCount: 1,
      scheduledAt: '2026-11-26T05:00:00Z',
    });
    expect(second.statusCode, second.body).toBe(201);
    const refused = await ctx.admin('POST', `/admin/v1/draws/${second.json().id}/run`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code: 3509, name: 'DRAW_EARLIER_PENDING' });
    expect(refused.json().message).toContain(first.id);
    ctx.clock.set('2026-11-26T08:00:00Z');
    expect((await ctx.admin('POST', `/admin/v1/draws/${first.id}/run`)).json().ticketCount).toBe(4);
    expect((await ctx.admin('POST', `/admin/v1/draws/${second.json().id}/run`)).json().ticketCount).toBe(0);
  });
});

describe('migration 0017', () => {
  it('moves the seeds of draws not run yet out of `draws` and redacts them in the audit log', async () => {
    const url = process.env.DATABASE_URL;
    const name = `mrs_test_${randomBytes(6).toString('hex')}`;
    let database: Database;
    if (url) {
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`);
      await admin.end();
      const target = new URL(url);
      target.pathname = `/${name}`;
      database = openPostgres(target.toString(), 2);
    } else {
      database = await openPGlite(undefined);
    }
    try {
      await database.execScript(
        'CREATE TABLE schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
      );
      // The database as it was before 0017, with a committed draw whose creation was audited.
      for (const migration of listMigrations().filter((m) => m.version < '0017')) {
        await database.execScript(migration.sql);
        await database.db.insertInto('schema_migrations').values({ version: migration.version }).execute();
      }
      const seed = 'ab'.repeat(32);
      await sql`
        INSERT INTO reward_assets (id, symbol, name, decimals, created_at, updated_at) VALUES ('ast_m', 'M', 'M', 0, now(), now());
        INSERT INTO budgets (id, type, asset_id, name, total, stripes, created_at, updated_at)
          VALUES ('bdg_m', 'LUCKY_DRAW', 'ast_m', 'm', 10, 1, now(), now());
        INSERT INTO budget_stripes (budget_id, stripe, remaining) VALUES ('bdg_m', 0, 10)`.execute(
        database.db,
      );
      await database.db.transaction().execute(async (trx) => {
        await sql`SELECT set_config('mrs.actor', '{"id":"adm_m","name":"m"}', true)`.execute(trx);
        for (const [id, status] of [
          ['drw_pending', 'COMMITTED'],
          ['drw_done', 'DRAWN'],
        ])
          await sql`
            INSERT INTO draws (id, budget_id, title, prize_amount, winners_count, scheduled_at, status, commitment, seed, created_at)
            VALUES (${id}, 'bdg_m', 't', 1, 1, now(), ${status}, ${sha256(seed)}, ${seed}, now())`.execute(
            trx,
          );
      });
      expect(JSON.stringify((await sql`SELECT after FROM audit_events`.execute(database.db)).rows)).toContain(
        seed,
      );

      expect(await migrate(database)).toContain('0017_draw_seeds');
      const draws = await sql<{
        id: string;
        seed: string | null;
      }>`SELECT id, seed FROM draws ORDER BY id`.execute(database.db);
      expect(draws.rows).toEqual([
        { id: 'drw_done', seed },
        { id: 'drw_pending', seed: null },
      ]);
      const moved = await sql<{
        draw_id: string;
        seed: string;
      }>`SELECT draw_id, seed FROM draw_seeds`.execute(database.db);
      expect(moved.rows).toEqual([{ draw_id: 'drw_pending', seed }]);
      const audit = await sql<{ entity_id: string; seed: string }>`
        SELECT entity_id, after ->> 'seed' AS seed FROM audit_events WHERE entity_type = 'draw' ORDER BY entity_id`.execute(
        database.db,
      );
      // The draw already run had published its seed; the pending one's is redacted.
      expect(audit.rows).toEqual([
        { entity_id: 'drw_done', seed },
        { entity_id: 'drw_pending', seed: '[redacted]' },
      ]);
      // And audit_events is append-only again.
      await expect(sql`DELETE FROM audit_events`.execute(database.db)).rejects.toThrow(/append-only/);
    } finally {
      await database.close();
      if (url) {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await client.end();
      }
    }
  });
});
