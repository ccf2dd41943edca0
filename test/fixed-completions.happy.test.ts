// Completions of a FIXED-reward mission written in one statement (src/claims/fixed-completions.ts):
// records and claims together, the budget taken exactly, nothing written when no stripe has room,
// and declined whenever the completion must do more than pay one FIXED amount.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import {
  createAccount,
  createAsset,
  partnerCall,
  rewardedMission,
  setupMission,
  startTestApp,
} from './harness.ts';
import type { MissionSetup, TestContext } from './harness.ts';
import { randomUUID } from 'node:crypto';
import { completionsInOneStatement } from '../src/claims/fixed-completions.ts';
import { loadCompletionContext } from '../src/claims/completion.ts';
import type { CompletionReport } from '../src/progress/service.ts';
import { linkUsers } from './link-users.ts';
import { POOL, releaseMany, reserveMany, stripeOwner } from '../src/budgets/reservations.ts';

let ctx: TestContext;
let assetId: string;
const inOneStatement = completionsInOneStatement((db, event) => loadCompletionContext(db, event));

beforeAll(async () => {
  ctx = await startTestApp({ now: '2026-11-22T03:00:00Z' });
  assetId = await createAsset(ctx, { symbol: 'ONE', name: 'One', decimals: 0 });
});
afterAll(async () => {
  await ctx?.close();
});

const rewarded = (missionKey: string, total: string, amount: string, stripes = 4) =>
  rewardedMission(ctx, assetId, { missionKey, total, amount, stripes });

function report(setup: MissionSetup, partnerUid: string): CompletionReport {
  return {
    partnerId: setup.partnerId,
    partnerUid,
    missionId: setup.missionId,
    periodKey: 'ONCE',
    completed: true,
    target: null,
    defaultTarget: null,
    current: null,
    now: ctx.clock.now(),
    completionMarker: randomUUID(),
    promotionId: setup.promotionId,
    groupId: setup.groupId,
  };
}

const db = () => ctx.database.db;
const stripes = async (budgetId: string) =>
  (
    await db()
      .selectFrom('budget_stripes')
      .select('remaining')
      .where('budget_id', '=', budgetId)
      .orderBy('stripe')
      .execute()
  ).map((r) => BigInt(r.remaining));
/**
 * On Citus, moves `amount` of the budget's pool to the partner's stripes the way a completion's
 * refill does (reserved, then given back to the partner's stripe), so that one statement can take
 * from them. Elsewhere completions take from the pool's stripes, and this changes nothing.
 */
const refill = (setup: MissionSetup & { budgetId: string }, stripes: number, amount: bigint) =>
  db()
    .transaction()
    .execute(async (trx) => {
      const r = { budgetId: setup.budgetId, stripes, partnerId: setup.partnerId, key: 'refill', amount };
      const request = { amount, owner: stripeOwner(setup.partnerId), key: 'refill' };
      expect(await reserveMany(trx, setup.budgetId, stripes, [request])).toEqual([true]);
      await releaseMany(trx, [r]);
    });
const claims = (budgetId: string) =>
  db()
    .selectFrom('claims')
    .select(['id', 'partner_uid', 'status', 'amount'])
    .where('budget_id', '=', budgetId)
    .orderBy('partner_uid')
    .execute();

describe('completions of a FIXED reward in one statement', () => {
  it('write the records and a claim for each linked user that completed its period, taking exactly their amounts from one stripe; unlinked users take nothing', async () => {
    const setup = await rewarded('one-go', '400', '5');
    await createAccount(ctx, { link: { partnerId: setup.partnerId, partnerUid: 'og-linked' } });
    await createAccount(ctx, { link: { partnerId: setup.partnerId, partnerUid: 'og-linked-2' } });
    // On Citus the partner has no stripes of the budget yet: the statement writes nothing (the
    // transaction refills the partner's stripes from the budget's pool).
    if (stripeOwner(setup.partnerId) !== POOL)
      expect(await inOneStatement(db(), [report(setup, 'og-none')])).toBeUndefined();
    await refill(setup, 4, 100n);
    // og-done completed before: its record stays completed and it is paid nothing more.
    expect((await inOneStatement(db(), [report(setup, 'og-done')]))?.map((r) => r.newlyCompleted)).toEqual([
      true,
    ]);
    const results = await inOneStatement(
      db(),
      ['og-1', 'og-done', 'og-linked', 'og-2', 'og-linked-2'].map((uid) => report(setup, uid)),
    );
    expect(results?.map((r) => r.newlyCompleted)).toEqual([true, false, true, true, true]);
    expect((await claims(setup.budgetId)).map((c) => [c.partner_uid, c.status, c.amount])).toEqual([
      ['og-linked', 'REQUESTED', '5'],
      ['og-linked-2', 'REQUESTED', '5'],
    ]);
    // The unlinked users' rewards wait, deferred, for their link; nothing of theirs left the budget.
    const deferred = await db()
      .selectFrom('deferred_rewards')
      .select(['partner_uid', 'kind', 'amount'])
      .where('budget_id', '=', setup.budgetId)
      .orderBy('partner_uid')
      .execute();
    expect(deferred.map((d) => [d.partner_uid, d.kind, d.amount])).toEqual([
      ['og-1', 'CLAIM', '5'],
      ['og-2', 'CLAIM', '5'],
      ['og-done', 'CLAIM', '5'],
    ]);
    const left = await stripes(setup.budgetId);
    expect(left.reduce((a, x) => a + x, 0n)).toBe(400n - 2n * 5n);
    const records = await db()
      .selectFrom('mission_progress')
      .select(['partner_uid', 'completed', 'report_count'])
      .where('mission_id', '=', setup.missionId)
      .orderBy('partner_uid')
      .execute();
    expect(records.map((r) => [r.partner_uid, r.completed, r.report_count])).toEqual([
      ['og-1', true, 1],
      ['og-2', true, 1],
      ['og-done', true, 2],
      ['og-linked', true, 1],
      ['og-linked-2', true, 1],
    ]);
    // History as grantClaims writes it: a linked user's claim was RESERVED, then REQUESTED.
    const linked = (await claims(setup.budgetId)).find((c) => c.partner_uid === 'og-linked');
    const history = await db()
      .selectFrom('claim_events')
      .select(['from_status', 'to_status'])
      .where('claim_id', '=', linked?.id as string)
      .orderBy('id')
      .execute();
    expect(history).toEqual([
      { from_status: null, to_status: 'RESERVED' },
      { from_status: 'RESERVED', to_status: 'REQUESTED' },
    ]);
  });

  it('write nothing at all when no free stripe of the partner has room for the whole batch', async () => {
    const setup = await rewarded('no-room', '12', '1'); // 3 a stripe, a batch of 4
    await refill(setup, 4, 3n);
    const before = await stripes(setup.budgetId);
    expect(
      await inOneStatement(
        db(),
        ['nr-1', 'nr-2', 'nr-3', 'nr-4'].map((uid) => report(setup, uid)),
      ),
    ).toBeUndefined();
    expect(await stripes(setup.budgetId)).toEqual(before);
    expect(await claims(setup.budgetId)).toEqual([]);
    const records = await db()
      .selectFrom('mission_progress')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('mission_id', '=', setup.missionId)
      .executeTakeFirstOrThrow();
    expect(records.n).toBe(0);
  });

  it('decline a mission whose group has a reward, and missions with different rewards in one batch', async () => {
    const grouped = await rewarded('grouped', '100', '1');
    const groupBudget = (
      await ctx.admin('POST', '/admin/v1/budgets', { type: 'FIXED', assetId, name: 'group', total: '10' })
    ).json<{ id: string }>().id;
    expect(
      (
        await ctx.admin('PUT', `/admin/v1/mission-groups/${grouped.groupId}/reward`, {
          type: 'FIXED',
          budgetId: groupBudget,
          amount: '1',
        })
      ).statusCode,
    ).toBe(200);
    expect(await inOneStatement(db(), [report(grouped, 'gr-1')])).toBeUndefined();
    const a = await rewarded('diff-a', '100', '1');
    const b = await rewarded('diff-b', '100', '2');
    expect(await inOneStatement(db(), [report(a, 'd-1'), report(b, 'd-1')])).toBeUndefined();
    expect(await claims(a.budgetId)).toEqual([]);
  });

  it('write only the records of missions that pay nothing', async () => {
    const setup = await setupMission(ctx, { missionKey: 'unpaid', recurrence: 'ONE_TIME' });
    const results = await inOneStatement(db(), [report(setup, 'up-1'), report(setup, 'up-2')]);
    expect(results?.map((r) => r.newlyCompleted)).toEqual([true, true]);
    const records = await db()
      .selectFrom('mission_progress')
      .select('completed')
      .where('mission_id', '=', setup.missionId)
      .execute();
    expect(records).toEqual([{ completed: true }, { completed: true }]);
  });
});

describe('a crowd completing a FIXED-reward mission over HTTP', () => {
  it('drains the budget exactly: one claim per user while it lasts, the rest REJECTED, nothing left', async () => {
    // 300 to give over 16 stripes: batches take the one-statement path while a stripe has room for
    // them, then the transaction (sharing out the last crumbs); 60 users too many.
    const setup = await rewarded('crowd-one', '300', '1', 16);
    await linkUsers(
      ctx,
      setup.partnerId,
      Array.from({ length: 360 }, (_, i) => `c1-${i}`),
    );
    const answers = await Promise.all(
      Array.from({ length: 360 }, (_, i) =>
        partnerCall(ctx, setup, {
          method: 'POST',
          url: '/v1/achieve',
          body: { partnerUid: `c1-${i}`, missionKey: 'crowd-one', completed: true },
        }),
      ),
    );
    expect(answers.filter((a) => a.statusCode !== 200).map((a) => a.body)).toEqual([]);
    const all = await claims(setup.budgetId);
    expect(new Set(all.map((c) => c.partner_uid)).size).toBe(360);
    expect(all.filter((c) => c.status === 'REQUESTED')).toHaveLength(300);
    expect(all.filter((c) => c.status === 'REJECTED')).toHaveLength(60);
    // Nothing left, in the pool's stripes nor in the partner's (refilled from the pool).
    const left = await stripes(setup.budgetId);
    expect(left.length).toBeGreaterThanOrEqual(16);
    expect(left.every((s) => s === 0n)).toBe(true);
  });
});
