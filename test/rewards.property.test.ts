// Property: whatever sequence of completions, top-ups, operator rejections and payouts happens,
// remaining + reserved + paid equals the total, claims never exceed it, and the ledger sums to zero.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { sql } from 'kysely';
import { createAccount, partnerCall, setupMission, startTestApp } from './harness.ts';
import type { MissionSetup, TestContext } from './harness.ts';
import { runPayoutBatch } from '../src/payout/worker.ts';
import { onUserLinked } from '../src/claims/deferred-rewards.ts';
import { parseAmount } from '../src/domain/amounts.ts';

let ctx: TestContext;
let assetId: string;
let run = 0;

beforeAll(async () => {
  ctx = await startTestApp();
  assetId = (
    await ctx.admin('POST', '/admin/v1/reward-assets', { symbol: 'P', name: 'P', decimals: 3 })
  ).json().id;
});
afterAll(async () => {
  await ctx?.close();
});

type Op =
  | { kind: 'complete'; user: number }
  | { kind: 'topUp'; amount: string }
  | { kind: 'reject'; pick: number }
  | { kind: 'link'; user: number }
  | { kind: 'pay' };

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({ kind: fc.constant('complete' as const), user: fc.integer({ min: 0, max: 14 }) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('topUp' as const),
      amount: fc.constantFrom('0.001', '1', '2.5', '7.125'),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reject' as const), pick: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('link' as const), user: fc.integer({ min: 0, max: 14 }) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('pay' as const) }) },
);

describe('budget and ledger invariants', () => {
  it('hold after any sequence of operations, including concurrent completions', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('1', '3.3', '10'),
        fc.constantFrom('0.7', '1', '2.25'),
        fc.array(op, { minLength: 1, maxLength: 25 }),
        async (total, amount, ops) => {
          run++;
          const setup: MissionSetup = await setupMission(ctx, {
            missionKey: `prop-${run}`,
            recurrence: 'ONE_TIME',
          });
          const budgetId = (
            await ctx.admin('POST', '/admin/v1/budgets', {
              type: 'FIXED',
              assetId,
              name: `p${run}`,
              total,
              stripes: 4,
            })
          ).json().id;
          await ctx.admin('PUT', `/admin/v1/missions/${setup.missionId}/reward`, {
            type: 'FIXED',
            budgetId,
            amount,
          });
          const linked = new Set<number>();
          let expectedTotal = parseAmount(total, 3);
          // Completions of a step run concurrently.
          for (const step of ops) {
            if (step.kind === 'complete') {
              await Promise.all(
                [step.user, (step.user + 1) % 15].map((u) =>
                  partnerCall(ctx, setup, {
                    method: 'POST',
                    url: '/v1/achieve',
                    body: { partnerUid: `u${u}`, missionKey: setup.missionKey, completed: true },
                  }),
                ),
              );
            } else if (step.kind === 'topUp') {
              await ctx.admin('POST', `/admin/v1/budgets/${budgetId}/top-up`, { amount: step.amount });
              expectedTotal += parseAmount(step.amount, 3);
            } else if (step.kind === 'reject') {
              const reserved = (
                await ctx.admin('GET', `/admin/v1/claims?budgetId=${budgetId}&status=RESERVED`)
              ).json().items;
              if (reserved.length > 0)
                await ctx.admin(
                  'POST',
                  `/admin/v1/claims/${reserved[step.pick % reserved.length].id}/reject`,
                  { reason: 'property' },
                );
            } else if (step.kind === 'link' && !linked.has(step.user)) {
              linked.add(step.user);
              // As connect links: the mapping and the grant of the user's recorded completions together.
              const accountId = await createAccount(ctx);
              await ctx.database.db.transaction().execute(async (trx) => {
                await trx
                  .insertInto('user_mappings')
                  .values({
                    partner_id: setup.partnerId,
                    partner_uid: `u${step.user}`,
                    account_id: accountId,
                    region: 'KR',
                    created_at: ctx.clock.now(),
                  })
                  .execute();
                await onUserLinked(
                  trx,
                  { partnerId: setup.partnerId, partnerUid: `u${step.user}`, accountId },
                  ctx.clock.now(),
                );
              });
            } else if (step.kind === 'pay') {
              await runPayoutBatch(ctx.database.db, ctx.clock);
            }
            const view = (await ctx.admin('GET', `/admin/v1/budgets/${budgetId}`)).json();
            const [r, s, p, t] = [view.remaining, view.reserved, view.paid, view.total].map((x: string) =>
              parseAmount(x, 3, { allowZero: true }),
            ) as [bigint, bigint, bigint, bigint];
            expect(r + s + p).toBe(t);
            expect(t).toBe(expectedTotal);
            expect(r >= 0n).toBe(true);
          }
          const sums = await ctx.database.db
            .selectFrom('ledger_entries')
            .select(['asset_id', sql<string>`sum(amount)::text`.as('s')])
            .groupBy('asset_id')
            .execute();
          for (const row of sums) expect(row.s).toBe('0');
          const perUser = await ctx.database.db
            .selectFrom('claims')
            .select(['partner_uid', sql<number>`count(*)::int`.as('n')])
            .where('budget_id', '=', budgetId)
            .groupBy('partner_uid')
            .execute();
          for (const row of perUser) expect(row.n).toBe(1);
          // Only linked users hold claims (and so budget).
          for (const row of perUser) expect(linked.has(Number(row.partner_uid.slice(1)))).toBe(true);
        },
      ),
      { numRuns: 15 },
    );
  });
});
