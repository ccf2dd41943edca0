// Top-ups while a crowd completes (issue #28 item 4): a top-up used to lock the budget row FOR
// UPDATE and then the stripes one by one, while a batch holding a stripe waited for the budget row
// (its claims' foreign key takes KEY SHARE on it): PostgreSQL broke the cycle with "deadlock
// detected" and the operator got a 503. Every top-up and every completion must now succeed, and the
// totals stay exact.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createAsset, partnerCall, rewardedMission, startTestApp } from './harness.ts';
import type { TestContext } from './harness.ts';
import { linkUsers } from './link-users.ts';

let ctx: TestContext;
let assetId: string;

beforeAll(async () => {
  ctx = await startTestApp({ now: '2026-11-22T03:00:00Z' });
  assetId = await createAsset(ctx, { symbol: 'TKN', name: 'Token', decimals: 18 });
});
afterAll(async () => {
  await ctx?.close();
});

async function totals(budgetId: string) {
  // Each sum on its own, not in a sub-query correlated with budgets (a reference table on Citus,
  // where the stripes and the claims are distributed).
  const { total } = await ctx.database.db
    .selectFrom('budgets')
    .select(sql<string>`total::text`.as('total'))
    .where('id', '=', budgetId)
    .executeTakeFirstOrThrow();
  const { remaining } = await ctx.database.db
    .selectFrom('budget_stripes')
    .select(sql<string>`sum(remaining)::text`.as('remaining'))
    .where('budget_id', '=', budgetId)
    .executeTakeFirstOrThrow();
  const { granted, claims } = await ctx.database.db
    .selectFrom('claims')
    .select([
      sql<string>`coalesce(sum(amount), 0)::text`.as('granted'),
      sql<number>`count(*)::int`.as('claims'),
    ])
    .where('budget_id', '=', budgetId)
    .where('status', '<>', 'REJECTED')
    .executeTakeFirstOrThrow();
  return { total, remaining, granted, claims };
}

describe('top-ups during completions', () => {
  it('never deadlock: every top-up and completion answers 200 and the totals are exact', async () => {
    const ROUNDS = 8;
    const USERS = 12;
    const TOP_UPS = 15;
    // A small budget (16 stripes of 6 or 7 units, rewards of 3): batches take from free stripes and,
    // when those run short, gather from every stripe, both while the top-ups add to them.
    const setup = await rewardedMission(ctx, assetId, {
      missionKey: 'top-up-race',
      total: '0.000000000000000100',
      amount: '0.000000000000000003',
    });
    const statuses: number[] = [];
    let added = 0n;
    for (let round = 0; round < ROUNDS; round++) {
      const uids = Array.from({ length: USERS }, (_, i) => `r${round}-u${i}`);
      await linkUsers(ctx, setup.partnerId, uids);
      const completions = uids.map((partnerUid) =>
        partnerCall(ctx, setup, {
          method: 'POST',
          url: '/v1/achieve',
          body: { partnerUid, missionKey: setup.missionKey, completed: true },
        }),
      );
      const topUps = Array.from({ length: TOP_UPS }, (_, i) => {
        const amount = BigInt(i + 1);
        added += amount;
        return ctx.admin('POST', `/admin/v1/budgets/${setup.budgetId}/top-up`, {
          amount: `0.${amount.toString().padStart(18, '0')}`,
        });
      });
      const answers = await Promise.all([...completions, ...topUps]);
      for (const answer of answers) {
        if (answer.statusCode !== 200) console.error(answer.statusCode, answer.body);
        statuses.push(answer.statusCode);
      }
    }
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    const after = await totals(setup.budgetId);
    expect(after.total).toBe((100n + added).toString());
    // Every base unit is either still in a stripe or in a claim.
    expect(BigInt(after.remaining) + BigInt(after.granted)).toBe(100n + added);
    expect(BigInt(after.granted)).toBe(3n * BigInt(after.claims));
  });
});
