// One reward per person (issue #28 item 2): one platform account linked to four partnerUids in turn
// (link, unlink by support, link again) collected a ONE_TIME reward four times. "Once per period"
// now holds per platform account within a promotion, whatever partnerUids it was linked through:
// the later partnerUids' completions are recorded, and their claims are REJECTED with reason
// ALREADY_REWARDED (nothing taken from the budget); deferred rewards released at the link too, and
// lucky-draw tickets (none issued).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import {
  createAccount,
  createAsset,
  createBudget,
  partnerCall,
  rewardedMission,
  setupMission,
  startTestApp,
} from './harness.ts';
import type { MissionSetup, TestContext } from './harness.ts';
import { onUserLinked } from '../src/claims/deferred-rewards.ts';

let ctx: TestContext;
let assetId: string;

beforeAll(async () => {
  ctx = await startTestApp({ now: '2026-11-22T03:00:00Z' });
  assetId = await createAsset(ctx, { symbol: 'PNT', name: 'Points', decimals: 0 });
});
afterAll(async () => {
  await ctx?.close();
});

/** Links the partner user to the account as connect does: the mapping and its deferred rewards, in one transaction. */
async function link(setup: MissionSetup, partnerUid: string, accountId: string) {
  await ctx.database.db.transaction().execute(async (trx) => {
    await trx
      .insertInto('user_mappings')
      .values({
        partner_id: setup.partnerId,
        partner_uid: partnerUid,
        account_id: accountId,
        region: 'KR',
        created_at: ctx.clock.now(),
      })
      .execute();
    await onUserLinked(
      trx,
      { partnerId: setup.partnerId, partnerUid, accountId },
      ctx.clock.now(),
      ctx.config.claimReservationTtlSeconds,
    );
  });
}

async function unlink(setup: MissionSetup, partnerUid: string) {
  const answer = await ctx.admin(
    'DELETE',
    `/admin/v1/partners/${setup.partnerId}/users/${partnerUid}/mapping`,
  );
  expect(answer.statusCode, answer.body).toBe(204);
}

async function complete(setup: MissionSetup, partnerUid: string) {
  const answer = await partnerCall(ctx, setup, {
    method: 'POST',
    url: '/v1/achieve',
    body: { partnerUid, missionKey: setup.missionKey, completed: true },
  });
  expect(answer.statusCode, answer.body).toBe(200);
}

async function claimsOf(budgetId: string) {
  return ctx.database.db
    .selectFrom('claims')
    .select(['partner_uid', 'account_id', 'status', 'reason', sql<string>`amount::text`.as('amount')])
    .where('budget_id', '=', budgetId)
    .orderBy('partner_uid')
    .execute();
}

describe('one platform account linked through several partnerUids', () => {
  it('collects a ONE_TIME reward once, however it relinks, and the rest are REJECTED ALREADY_REWARDED', async () => {
    const setup = await rewardedMission(ctx, assetId, { missionKey: 'once', total: '100', amount: '10' });
    const person = await createAccount(ctx);
    for (const uid of ['uid-1', 'uid-2', 'uid-3', 'uid-4']) {
      await link(setup, uid, person);
      await complete(setup, uid);
      await unlink(setup, uid);
    }
    const claims = await claimsOf(setup.budgetId);
    expect(claims.map((c) => `${c.partner_uid}:${c.status}:${c.reason}`)).toEqual([
      'uid-1:REQUESTED:null',
      'uid-2:REJECTED:ALREADY_REWARDED',
      'uid-3:REJECTED:ALREADY_REWARDED',
      'uid-4:REJECTED:ALREADY_REWARDED',
    ]);
    expect(claims.every((c) => c.account_id === person)).toBe(true);
    // Exactly one reward left the budget, and every completion is recorded.
    expect((await ctx.admin('GET', `/admin/v1/budgets/${setup.budgetId}`)).json()).toMatchObject({
      remaining: '90',
      reserved: '10',
      rejected: 3,
    });
    const records = await ctx.database.db
      .selectFrom('mission_progress')
      .select('partner_uid')
      .where('mission_id', '=', setup.missionId)
      .where('completed', '=', true)
      .execute();
    expect(records).toHaveLength(4);
  });

  it('holds for deferred rewards released at the link, and another person is still paid', async () => {
    const setup = await rewardedMission(ctx, assetId, { missionKey: 'deferred', total: '100', amount: '10' });
    const person = await createAccount(ctx);
    // Completed before linking, through two partnerUids in turn: both deferred.
    await complete(setup, 'd-1');
    await complete(setup, 'd-2');
    await link(setup, 'd-1', person);
    await unlink(setup, 'd-1');
    await link(setup, 'd-2', person);
    // A different person, linked through a third partnerUid, is paid as usual.
    await complete(setup, 'd-3');
    await link(setup, 'd-3', await createAccount(ctx));
    expect((await claimsOf(setup.budgetId)).map((c) => `${c.partner_uid}:${c.status}:${c.reason}`)).toEqual([
      'd-1:REQUESTED:null',
      'd-2:REJECTED:ALREADY_REWARDED',
      'd-3:REQUESTED:null',
    ]);
    expect((await ctx.admin('GET', `/admin/v1/budgets/${setup.budgetId}`)).json().remaining).toBe('80');
  });

  it('a DAILY reward once a day per person, and one lucky-draw ticket per person and period', async () => {
    const daily = await setupMission(ctx, { missionKey: 'daily', recurrence: 'DAILY' });
    const dailyBudget = await createBudget(ctx, assetId, '100');
    await ctx.admin('PUT', `/admin/v1/missions/${daily.missionId}/reward`, {
      type: 'FIXED',
      budgetId: dailyBudget,
      amount: '5',
    });
    const lucky = await setupMission(ctx, { missionKey: 'lucky', recurrence: 'ONE_TIME' });
    const luckyBudget = await createBudget(ctx, assetId, '100', { type: 'LUCKY_DRAW' });
    await ctx.admin('PUT', `/admin/v1/missions/${lucky.missionId}/reward`, {
      type: 'LUCKY_DRAW',
      budgetId: luckyBudget,
    });
    const person = await createAccount(ctx);
    for (const uid of ['x-1', 'x-2']) {
      await link(daily, uid, person);
      await link(lucky, uid, person);
      await complete(daily, uid);
      await complete(lucky, uid);
      await unlink(daily, uid);
      await unlink(lucky, uid);
    }
    // The next day the person may earn the DAILY reward again (once).
    ctx.clock.advance(24 * 3600 * 1000);
    await link(daily, 'x-3', person);
    await complete(daily, 'x-3');
    expect((await claimsOf(dailyBudget)).map((c) => `${c.partner_uid}:${c.status}:${c.reason}`)).toEqual([
      'x-1:REQUESTED:null',
      'x-2:REJECTED:ALREADY_REWARDED',
      'x-3:REQUESTED:null',
    ]);
    const tickets = await ctx.database.db
      .selectFrom('tickets')
      .select(['partner_uid', 'account_id'])
      .where('budget_id', '=', luckyBudget)
      .execute();
    expect(tickets).toEqual([{ partner_uid: 'x-1', account_id: person }]);
  });
});
