// A claim's status and its history are written together (DESIGN.md 4: one transition function):
// after the payout, retry, expiry, link and operator paths every claim's latest history row names
// its status, and a history write that fails leaves the status unchanged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createAccount, partnerCall, setupMission, startTestApp } from './harness.ts';
import type { MissionSetup, TestContext } from './harness.ts';
import { runPayoutBatch } from '../src/payout/worker.ts';
import { ledgerProvider } from '../src/payout/ledger.ts';
import type { PayoutProvider } from '../src/payout/ledger.ts';
import { expireReservations } from '../src/claims/expiry.ts';
import { grantRewardsOfRecentLinks } from '../src/payout/link-sweep.ts';
import { retryDelayMs } from '../src/domain/claims.ts';

let ctx: TestContext;
let setup: MissionSetup;
let budgetId: string;
let assetId: string;

const failing: PayoutProvider = {
  name: 'failing',
  async pay() {
    throw new Error('provider is down');
  },
};

beforeAll(async () => {
  ctx = await startTestApp({ now: '2026-11-22T03:00:00Z' });
  setup = await setupMission(ctx, { missionKey: 'history', recurrence: 'ONE_TIME' });
  assetId = (
    await ctx.admin('POST', '/admin/v1/reward-assets', { symbol: 'H', name: 'H', decimals: 0 })
  ).json().id;
  budgetId = (
    await ctx.admin('POST', '/admin/v1/budgets', { type: 'FIXED', assetId, name: 'h', total: '100' })
  ).json().id;
  await ctx.admin('PUT', `/admin/v1/missions/${setup.missionId}/reward`, {
    type: 'FIXED',
    budgetId,
    amount: '1',
  });
});
afterAll(async () => {
  await ctx?.close();
});

async function completeLinked(partnerUid: string): Promise<string> {
  await createAccount(ctx, { link: { partnerId: setup.partnerId, partnerUid } });
  const answer = await partnerCall(ctx, setup, {
    method: 'POST',
    url: '/v1/achieve',
    body: { partnerUid, missionKey: 'history', completed: true },
  });
  expect(answer.statusCode).toBe(200);
  return (await ctx.admin('GET', `/admin/v1/claims?partnerUid=${partnerUid}`)).json().items[0].id;
}

/** A RESERVED claim as those of before migration 0008 (its user had not linked), with its first history row. */
async function legacyReservedClaim(partnerUid: string, createdAt: Date): Promise<string> {
  const id = `clm_legacy_${partnerUid}`;
  await ctx.database.db
    .insertInto('claims')
    .values({
      id,
      budget_id: budgetId,
      asset_id: assetId,
      partner_id: setup.partnerId,
      partner_uid: partnerUid,
      account_id: null,
      promotion_id: setup.promotionId,
      source: 'MISSION',
      source_id: setup.missionId,
      period_key: 'ONCE',
      amount: 1n,
      status: 'RESERVED',
      created_at: createdAt,
      updated_at: createdAt,
    })
    .execute();
  await ctx.database.db
    .insertInto('claim_events')
    .values({
      partner_id: setup.partnerId,
      claim_id: id,
      from_status: null,
      to_status: 'RESERVED',
      reason: null,
      at: createdAt,
    })
    .execute();
  return id;
}

/** Claims whose latest history row does not name their status (none, when status and history move together). */
async function claimsOutOfStep() {
  const { rows } = await sql<{ id: string; status: string; last: string | null }>`
    SELECT c.id, c.status, l.to_status AS last
    FROM claims c
    -- Each claim's latest row, by a join (Citus runs no correlated sub-query over a distributed
    -- table, which claim_events is there: docs/scaling.md "On Citus").
    LEFT JOIN (SELECT DISTINCT ON (e.claim_id) e.claim_id, e.to_status FROM claim_events e ORDER BY e.claim_id, e.id DESC) l
      ON l.claim_id = c.id`.execute(ctx.database.db);
  return rows.filter((r) => r.last !== r.status);
}

const statusOf = async (id: string) =>
  (await ctx.database.db.selectFrom('claims').select('status').where('id', '=', id).executeTakeFirstOrThrow())
    .status;

describe('claim status and history', () => {
  it('move together on the payout, retry, expiry, link and operator paths', async () => {
    const paid = await completeLinked('paid');
    const retried = await completeLinked('retried');
    // Both fail once, then the retry pays them.
    const expired = await legacyReservedClaim('expired', new Date('2026-09-01T00:00:00Z'));
    const rejected = await legacyReservedClaim('rejected', new Date('2026-11-21T00:00:00Z'));
    const linked = await legacyReservedClaim('linked', new Date('2026-11-21T00:00:00Z'));

    expect(await runPayoutBatch(ctx.database.db, ctx.clock, failing)).toBe(2);
    ctx.clock.advance(retryDelayMs(1) + 1);
    expect(await runPayoutBatch(ctx.database.db, ctx.clock, ledgerProvider)).toBe(2);
    expect(await statusOf(paid)).toBe('SUCCEEDED');
    // The operator cannot move a paid claim.
    expect((await ctx.admin('POST', `/admin/v1/claims/${retried}/retry`)).statusCode).toBe(409);

    // Expiry, the link sweep and the operator's reject.
    expect(await expireReservations(ctx.database.db, ctx.clock, 30 * 24 * 3600)).toBe(1);
    const accountId = await createAccount(ctx);
    await ctx.database.db
      .insertInto('user_mappings')
      .values({
        partner_id: setup.partnerId,
        partner_uid: 'linked',
        account_id: accountId,
        region: 'KR',
        created_at: ctx.clock.now(),
      })
      .execute();
    expect(await grantRewardsOfRecentLinks(ctx.database.db, ctx.clock)).toBe(1);
    const reject = await ctx.admin('POST', `/admin/v1/claims/${rejected}/reject`, { reason: 'fraud' });
    expect(reject.statusCode).toBe(204);

    expect(await statusOf(expired)).toBe('REJECTED');
    expect(await statusOf(linked)).toBe('REQUESTED');
    // The sweep gave the claim its user's account from the link.
    expect(
      (
        await ctx.database.db
          .selectFrom('claims')
          .select('account_id')
          .where('id', '=', linked)
          .executeTakeFirstOrThrow()
      ).account_id,
    ).toBe(accountId);
    expect(await statusOf(rejected)).toBe('REJECTED');
    expect(await claimsOutOfStep()).toEqual([]);
    const history = (await ctx.admin('GET', `/admin/v1/claims/${retried}/history`)).json().items;
    expect(history.map((h: { from: string | null; to: string }) => `${h.from}>${h.to}`)).toEqual([
      'null>RESERVED',
      'RESERVED>REQUESTED',
      'REQUESTED>FAILED',
      'FAILED>REQUESTED',
      'REQUESTED>SUCCEEDED',
    ]);
  });

  it("every history and ledger row carries its claim's partner_id, and may not name another", async () => {
    // Migration 0039 (docs/scaling.md "Money on Citus"): the column the money tables are to be
    // sharded on, written by every path above (grant, transitions, ledger) and kept by foreign keys.
    const { rows } = await sql<Record<string, string>>`
      SELECT (SELECT count(*) FROM claim_events)::text AS events,
             (SELECT count(*) FROM claim_events e
              LEFT JOIN claims c ON c.id = e.claim_id AND c.partner_id = e.partner_id WHERE c.id IS NULL)::text AS events_astray,
             (SELECT count(*) FROM ledger_transfers)::text AS transfers,
             (SELECT count(*) FROM ledger_transfers t
              LEFT JOIN claims c ON c.id = t.claim_id AND c.partner_id = t.partner_id WHERE c.id IS NULL)::text AS transfers_astray,
             (SELECT count(*) FROM ledger_entries)::text AS entries,
             (SELECT count(*) FROM ledger_entries e
              LEFT JOIN ledger_transfers t ON t.id = e.transfer_id AND t.partner_id = e.partner_id WHERE t.id IS NULL)::text AS entries_astray`.execute(
      ctx.database.db,
    );
    const counts = rows[0] as Record<string, string>;
    expect(Number(counts.events)).toBeGreaterThan(0);
    expect(Number(counts.transfers)).toBeGreaterThan(0);
    expect(counts.entries).toBe(String(2 * Number(counts.transfers)));
    expect([counts.events_astray, counts.transfers_astray, counts.entries_astray]).toEqual(['0', '0', '0']);
    const [claim] = await ctx.database.db.selectFrom('claims').select('id').limit(1).execute();
    await expect(
      ctx.database.db
        .insertInto('claim_events')
        .values({
          partner_id: 'ptn_other',
          claim_id: claim?.id ?? '',
          from_status: null,
          to_status: 'RESERVED',
          reason: null,
          at: ctx.clock.now(),
        })
        .execute(),
    ).rejects.toThrow(/foreign key/);
  });

  it('a retry whose history cannot be written leaves the claim FAILED (one statement, not two)', async () => {
    const claim = await completeLinked('crash');
    expect(await runPayoutBatch(ctx.database.db, ctx.clock, failing)).toBeGreaterThanOrEqual(1);
    expect(await statusOf(claim)).toBe('FAILED');
    // The history write of the retry fails, as a crash between two statements would leave it.
    await sql`
      CREATE FUNCTION refuse_retry_history() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.reason = 'retry' THEN RAISE EXCEPTION 'history write lost'; END IF;
        RETURN NEW;
      END $$`.execute(ctx.database.db);
    await sql`CREATE TRIGGER refuse_retry_history BEFORE INSERT ON claim_events
              FOR EACH ROW EXECUTE FUNCTION refuse_retry_history()`.execute(ctx.database.db);
    try {
      ctx.clock.advance(retryDelayMs(1) + 1);
      await expect(runPayoutBatch(ctx.database.db, ctx.clock, ledgerProvider)).rejects.toThrow();
      expect(await statusOf(claim)).toBe('FAILED');
      expect(await claimsOutOfStep()).toEqual([]);
    } finally {
      await sql`DROP TRIGGER refuse_retry_history ON claim_events`.execute(ctx.database.db);
      await sql`DROP FUNCTION refuse_retry_history()`.execute(ctx.database.db);
    }
    expect(await runPayoutBatch(ctx.database.db, ctx.clock, ledgerProvider)).toBeGreaterThanOrEqual(1);
    expect(await statusOf(claim)).toBe('SUCCEEDED');
    expect(await claimsOutOfStep()).toEqual([]);
  });
});
