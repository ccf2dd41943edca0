// Property: the amount a webhook event carries, formatted in SQL (scaledAmount), is the text the API
// writes for the same base units and decimals (formatAmount): for any amount up to 10^40 and any
// decimals 0-18 of a real reward asset, on both databases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { sql } from 'kysely';
import { startTestApp } from './harness.ts';
import type { TestContext } from './harness.ts';
import { scaledAmount } from '../src/webhooks/store/events.ts';
import { formatAmount } from '../src/domain/amounts.ts';

let ctx: TestContext;
/** Asset id by decimals, 0 to 18. */
const assets = new Map<number, string>();

beforeAll(async () => {
  ctx = await startTestApp();
  for (let decimals = 0; decimals <= 18; decimals++) {
    const created = await ctx.admin('POST', '/admin/v1/reward-assets', {
      symbol: `D${decimals}`,
      name: `${decimals} decimals`,
      decimals,
    });
    expect(created.statusCode, created.body).toBe(201);
    assets.set(decimals, created.json().id);
  }
});
afterAll(async () => {
  await ctx?.close();
});

const units = fc.oneof(
  fc.bigInt({ min: 0n, max: 10n ** 40n }),
  // Round numbers and single digits, where trailing zeros and padding matter most.
  fc
    .tuple(fc.integer({ min: 0, max: 9 }), fc.integer({ min: 0, max: 30 }))
    .map(([d, z]) => BigInt(d) * 10n ** BigInt(z)),
);

describe('webhook event amounts', () => {
  it('are the text the API writes, for every amount and decimals', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(units, fc.integer({ min: 0, max: 18 })), { minLength: 1, maxLength: 50 }),
        async (cases) => {
          const { rows } = await sql<{ text: string }>`
            SELECT ${scaledAmount(sql`t.amount`, sql`t.asset_id`)} AS text
            FROM unnest(${cases.map(([u]) => u.toString())}::numeric[], ${cases.map(([, d]) => assets.get(d))}::text[])
                 WITH ORDINALITY AS t(amount, asset_id, n)
            ORDER BY t.n`.execute(ctx.database.db);
          expect(rows.map((r) => r.text)).toEqual(cases.map(([u, d]) => formatAmount(u, d)));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('are whole base units when the asset is unknown (no decimals)', async () => {
    const { rows } = await sql<{ text: string }>`
      SELECT ${scaledAmount(sql`1200::numeric`, sql`'ast_missing'::text`)} AS text`.execute(ctx.database.db);
    expect(rows[0]?.text).toBe('1200');
  });
});
