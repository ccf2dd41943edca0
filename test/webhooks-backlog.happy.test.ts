// A delivery round reads its own messages, not the backlog: 3,000 messages due at the same instant
// (one statement's events share it; so does a backlog inserted at once) are leased 20 at a time in
// event order, and the plans of the lease's statements (the round's partners, then a partner's
// messages, migration 0045) read no more rows of webhook_messages than the round; a partner's,
// whatever join PostgreSQL prefers. Before migration 0015 the due index covered only
// next_attempt_at, so every round read and sorted all 3,000 (a backlog drained in time growing with
// its square). Both databases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DB } from '../src/db/schema.ts';
import { setupMission, startTestApp } from './harness.ts';
import type { TestContext } from './harness.ts';
import { registerEndpoint } from './webhooks/endpoints.ts';
import { leaseDueMessages } from '../src/webhooks/delivery.ts';
import {
  duePartners,
  leasePartnerMessages,
  recordAttemptsStatement,
} from '../src/webhooks/store/delivery.ts';
import type { Attempt } from '../src/webhooks/store/delivery.ts';
import { onCitusCoordinator } from '../src/db/citus.ts';

const BACKLOG = 3000;
const ROUND = 20;
let ctx: TestContext;
let partnerId: string;

beforeAll(async () => {
  ctx = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true' } });
  ({ partnerId } = await setupMission(ctx, { missionKey: 'backlog', recurrence: 'DAILY' }));
  // Never called: the test leases, it does not deliver.
  const endpoint = await registerEndpoint(ctx, partnerId, 'http://127.0.0.1:9/hook', [
    'mission.completed',
    'claim.requested',
  ]);
  // Events of one instant (odd n mission.completed, rank 2; even n claim.requested, rank 4),
  // inserted from the highest n down so that event order is not the order of the ids by accident.
  await sql`
    INSERT INTO webhook_messages (id, endpoint_id, partner_id, event_type, rank, payload, status, next_attempt_at, created_at)
    SELECT 'msg_backlog_' || lpad(n::text, 5, '0'), ${endpoint.id}, ${partnerId}, t, r,
           jsonb_build_object('type', t, 'data', jsonb_build_object('n', n)),
           'PENDING', ${ctx.clock.now()}::timestamptz - interval '1 minute', ${ctx.clock.now()}::timestamptz - interval '1 minute'
    FROM generate_series(${BACKLOG - 1}, 0, -1) AS n,
         LATERAL (SELECT CASE WHEN n % 2 = 0 THEN 'claim.requested' ELSE 'mission.completed' END AS t,
                         CASE WHEN n % 2 = 0 THEN 4 ELSE 2 END AS r) e`.execute(ctx.database.db);
});
afterAll(async () => {
  await ctx?.close();
});

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Rows Removed by Filter'?: number;
  'Subplan Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  Plans?: PlanNode[];
}

/**
 * The plan nodes under `value`, itself included: through `Plans` on PostgreSQL, and on Citus also
 * through its `Distributed Query` (sub-plans, tasks and the workers' remote plans).
 */
function nodesOf(value: unknown): PlanNode[] {
  if (Array.isArray(value)) return value.flatMap(nodesOf);
  if (value === null || typeof value !== 'object') return [];
  const own = 'Node Type' in value ? [value as PlanNode] : [];
  return [...own, ...Object.values(value).flatMap(nodesOf)];
}

/** The node of the plan that computes the CTE `name`. */
function cte(node: PlanNode, name: string): PlanNode | undefined {
  return nodesOf(node).find((n) => n['Subplan Name'] === `CTE ${name}`);
}

/** Rows each scan of webhook_messages (on Citus, of a shard of it) under `node` handed up (all loops). */
function scansOfMessages(node: PlanNode): Array<{ type: string; rows: number }> {
  return nodesOf(node)
    .filter((n) => /^webhook_messages(_\d+)?$/.test(n['Relation Name'] ?? ''))
    .map((n) => ({ type: n['Node Type'], rows: n['Actual Rows'] * n['Actual Loops'] }));
}

/**
 * Rows each read of webhook_messages or of one of its indexes under `node` went through (all loops):
 * what it handed up and what its filter removed. Stricter than scansOfMessages, for a statement that
 * must find its rows by key and never pass over others.
 */
function readsOfMessages(node: PlanNode): Array<{ type: string; rows: number }> {
  return nodesOf(node)
    .filter((n) => /^webhook_messages(_|$)/.test(n['Relation Name'] ?? n['Index Name'] ?? ''))
    .map((n) => ({
      type: n['Node Type'],
      rows: (n['Actual Rows'] + (n['Rows Removed by Filter'] ?? 0)) * n['Actual Loops'],
    }));
}

function lease(batchSize: number) {
  const now = ctx.clock.now();
  return leaseDueMessages(ctx.database.db, now, new Date(now.getTime() + 60_000), batchSize);
}

/** The plan of a statement, run (EXPLAIN ANALYZE). */
async function planOf(
  statement:
    | ReturnType<typeof duePartners>
    | ReturnType<typeof leasePartnerMessages>
    | ReturnType<typeof recordAttemptsStatement>,
  db: Kysely<DB> = ctx.database.db,
) {
  const { rows } = await sql<{ 'QUERY PLAN': unknown }>`EXPLAIN (ANALYZE, FORMAT JSON) ${statement}`.execute(
    db,
  );
  const raw = rows[0]?.['QUERY PLAN'];
  return (typeof raw === 'string' ? JSON.parse(raw) : raw) as Array<{ Plan: PlanNode }>;
}

/** Every scan of webhook_messages in the round's partners' read hands up no more than the round. */
async function expectTheRoundsPartnersReadOnly() {
  const partners = await planOf(duePartners(ctx.clock.now(), ROUND));
  const partnerScans = scansOfMessages(partners[0]!.Plan);
  expect(partnerScans.length).toBeGreaterThan(0);
  for (const scan of partnerScans) expect(scan.rows, JSON.stringify(partnerScans)).toBeLessThanOrEqual(ROUND);
}

/**
 * Every scan of webhook_messages in the choice of a partner's round (the CTE `due`) hands up no
 * more than the round. The leasing update then finds those rows by id, by index or by hash join as
 * PostgreSQL costs it.
 */
async function expectThePartnersRoundReadOnly(db: Kysely<DB> = ctx.database.db) {
  const now = ctx.clock.now();
  const plan = await planOf(
    leasePartnerMessages(partnerId, now, new Date(now.getTime() + 60_000), ROUND),
    db,
  );
  const due = cte(plan[0]!.Plan, 'due');
  expect(due, JSON.stringify(plan)).toBeDefined();
  const scans = scansOfMessages(due!);
  expect(scans.length).toBeGreaterThan(0);
  for (const scan of scans) expect(scan.rows, JSON.stringify(scans)).toBeLessThanOrEqual(ROUND);
}

describe('webhook delivery with a backlog', () => {
  it('leases the earliest messages in event order, a round at a time', async () => {
    const first = await lease(ROUND);
    const second = await lease(ROUND);
    const ids = [...first, ...second].map((row) => row.id);
    // created_at ties, then rank (every mission.completed before any claim.requested of the
    // instant), then insertion (seq: the highest n went first).
    const expected = Array.from(
      { length: 2 * ROUND },
      (_, i) => `msg_backlog_${String(BACKLOG - 1 - 2 * i).padStart(5, '0')}`,
    );
    expect(ids).toEqual(expected);
  });

  it('chooses the round of a partner from its own messages whatever join PostgreSQL prefers', async () => {
    // Joined to the endpoints, a partner's round was planned as a hash join over the partner's whole
    // backlog and a sort of it when no statistics said how large the table was: 280 ms a round
    // with 300,000 messages due, against 3 ms (docs/performance.md, "Sixteenth round"). Nested
    // loops switched off for this statement make PostgreSQL prefer that join at this size too.
    await ctx.database.db.transaction().execute(async (trx) => {
      await sql`SET LOCAL enable_nestloop = off`.execute(trx);
      await expectThePartnersRoundReadOnly(trx);
    });
  });

  it('reads only the messages of its round, not the whole backlog, with statistics', async () => {
    // As autovacuum would have it: statistics that say the whole table is due.
    await sql`ANALYZE webhook_messages`.execute(ctx.database.db);
    await expectTheRoundsPartnersReadOnly();
    await expectThePartnersRoundReadOnly();
  });

  it('leases without moving the due time or writing an index entry (HOT updates)', async () => {
    // Leasing pushed next_attempt_at, an indexed column, so every message taken was written again
    // in each of the table's indexes (migration 0047, docs/performance.md "Seventeenth round"). The
    // counts are this backend's, read before the transaction rolls back; on Citus the shards' writes
    // are the workers' and not counted here, so only the row itself is checked there.
    class RolledBack extends Error {}
    const now = ctx.clock.now();
    const until = new Date(now.getTime() + 60_000);
    await expect(
      ctx.database.db.transaction().execute(async (trx) => {
        // The backend's counts not yet reported (this transaction's, and maybe earlier ones'):
        // read around the lease, within the transaction, their difference is the lease's.
        const counts = async () =>
          (
            await sql<{ updated: string; hot: string }>`
              SELECT pg_stat_get_xact_tuples_updated('webhook_messages'::regclass) AS updated,
                     pg_stat_get_xact_tuples_hot_updated('webhook_messages'::regclass) AS hot`.execute(trx)
          ).rows[0]!;
        const before = await counts();
        const { rows } = await leasePartnerMessages(partnerId, now, until, ROUND).execute(trx);
        const after = await counts();
        expect(rows).toHaveLength(ROUND);
        const held = await sql<{ next_attempt_at: Date; leased_until: Date }>`
          SELECT next_attempt_at, leased_until FROM webhook_messages
          WHERE partner_id = ${partnerId} AND id = ${rows[0]!.id}`.execute(trx);
        expect(held.rows[0]!.leased_until.getTime()).toBe(until.getTime());
        expect(held.rows[0]!.next_attempt_at.getTime()).toBe(now.getTime() - 60_000);
        if (!onCitusCoordinator()) {
          expect(Number(after.updated) - Number(before.updated)).toBe(ROUND);
          expect(Number(after.hot) - Number(before.hot)).toBe(ROUND);
        }
        throw new RolledBack();
      }),
    ).rejects.toBeInstanceOf(RolledBack);
  });

  it("records a round's attempts by the messages' keys, not by reading the backlog, whatever join PostgreSQL prefers", async () => {
    // With no statistics yet (a new database's first crowd), PostgreSQL took the due index, whose
    // predicate is the record's own condition (PENDING), for a few thousand rows, and hash-joined
    // the round's attempts to every PENDING message: 50-90 ms a round with 100,000-300,000 due
    // (docs/performance.md, "Eighteenth round"). Nested loops switched off make it prefer that join
    // here too; every scan of the table or of one of its indexes must still read no more than the
    // round, rows a filter removed included. Run and rolled back.
    const now = ctx.clock.now();
    const { rows } = await sql<{ id: string }>`
      SELECT id FROM webhook_messages WHERE partner_id = ${partnerId} AND status = 'PENDING'
      ORDER BY next_attempt_at, created_at, rank, seq LIMIT ${ROUND}`.execute(ctx.database.db);
    const attempts: Attempt[] = rows.map(({ id }) => ({
      id,
      partnerId,
      at: now,
      outcome: { statusCode: 200, error: null, durationMs: 3 },
      status: 'DELIVERED',
      attempts: 1,
      error: null,
      nextAttemptAt: now,
      deliveredAt: now,
    }));
    const unsent = [{ id: rows[0]!.id, partnerId }];
    class RolledBack extends Error {}
    const expectDelivered = async (trx: Kysely<DB>) => {
      const delivered = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM webhook_messages
        WHERE partner_id = ${partnerId} AND status = 'DELIVERED'`.execute(trx);
      expect(delivered.rows[0]!.n).toBe(ROUND);
      throw new RolledBack();
    };
    await expect(
      ctx.database.db.transaction().execute(async (trx) => {
        await sql`SET LOCAL enable_nestloop = off`.execute(trx);
        if (onCitusCoordinator()) {
          // Citus runs no EXPLAIN ANALYZE of a statement with an INSERT in a CTE: there the
          // statement runs, and its rows say it found its messages.
          await recordAttemptsStatement(attempts, unsent).execute(trx);
          return expectDelivered(trx);
        }
        const plan = await planOf(recordAttemptsStatement(attempts, unsent), trx);
        const reads = readsOfMessages(plan[0]!.Plan);
        expect(reads.length).toBeGreaterThan(0);
        for (const read of reads) expect(read.rows, JSON.stringify(reads)).toBeLessThanOrEqual(ROUND);
        return expectDelivered(trx);
      }),
    ).rejects.toBeInstanceOf(RolledBack);
  });

  it("a disabled endpoint's backlog does not keep other partners' messages from a round", async () => {
    const other = await setupMission(ctx, { missionKey: 'other', recurrence: 'DAILY' });
    const endpoint = await registerEndpoint(ctx, other.partnerId, 'http://127.0.0.1:9/other', [
      'mission.completed',
    ]);
    await sql`
      INSERT INTO webhook_messages (id, endpoint_id, partner_id, event_type, rank, payload, status, next_attempt_at, created_at)
      VALUES ('msg_other_1', ${endpoint.id}, ${other.partnerId}, 'mission.completed', 2, '{"type":"mission.completed"}',
              'PENDING', ${ctx.clock.now()}::timestamptz, ${ctx.clock.now()}::timestamptz)`.execute(
      ctx.database.db,
    );
    // The backlog (due a minute earlier) now waits for an endpoint that is switched off.
    await sql`UPDATE webhook_endpoints SET enabled = false WHERE partner_id = ${partnerId}`.execute(
      ctx.database.db,
    );
    expect((await lease(ROUND)).map((row) => row.id)).toEqual(['msg_other_1']);
  });
});
