// Claims and answers of idempotency keys share one statement per batch (src/idempotency/store.ts):
// a batch is all or nothing, so a batch that fails writes no claim and no answer, and the
// coalescer's re-run of each item alone then fails only the bad one. On PGlite and on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { ADMIN_TOKEN, startTestApp } from './harness.ts';
import { CoalescerGroup } from '../src/db/coalescer.ts';
import type { TestContext } from './harness.ts';
import { claimKey, keyBatch, recordAnswer } from '../src/idempotency/store.ts';
import type { KeyClaim } from '../src/idempotency/store.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await startTestApp();
});
afterAll(() => ctx.close());

const claimOf = (key: string, fingerprint = 'fp'): KeyClaim => {
  const now = new Date();
  return {
    scope: 'partner:batching',
    key,
    fingerprint,
    owner: `owner-${key}`,
    now,
    lockedUntil: new Date(now.getTime() + 60_000),
    expiresAt: new Date(now.getTime() + 3_600_000),
  };
};
const answer = { status: 200, headers: { 'content-type': 'application/json' }, body: '{"ok":true}' };

async function rowOf(key: string) {
  const { rows } = await sql<{ state: string; response_body: string | null }>`
    SELECT state, response_body FROM idempotency_keys WHERE scope = 'partner:batching' AND key = ${key}`.execute(
    ctx.database.db,
  );
  return rows[0];
}

describe('idempotency claims and answers in one statement', () => {
  it('a batch with an answer and a claim writes both', async () => {
    expect(await claimKey(ctx.database.db, claimOf('a1'))).toBe(true);
    const results = await keyBatch(ctx.database.db, [
      { answer: { scope: 'partner:batching', key: 'a1', owner: 'owner-a1', answer } },
      { claim: claimOf('b1') },
    ]);
    expect(results).toEqual([true, true]);
    expect(await rowOf('a1')).toMatchObject({ state: 'DONE', response_body: '{"ok":true}' });
    expect(await rowOf('b1')).toMatchObject({ state: 'RUNNING', response_body: null });
  });

  it('a batch that fails writes no answer and no claim (rolled back together)', async () => {
    expect(await claimKey(ctx.database.db, claimOf('a2'))).toBe(true);
    // A NUL character cannot be stored in a text column: the claim of b2 breaks the statement.
    await expect(
      keyBatch(ctx.database.db, [
        { answer: { scope: 'partner:batching', key: 'a2', owner: 'owner-a2', answer } },
        { claim: claimOf('b2', 'bad\u0000fingerprint') },
      ]),
    ).rejects.toThrow();
    expect(await rowOf('a2')).toMatchObject({ state: 'RUNNING', response_body: null });
    expect(await rowOf('b2')).toBeUndefined();
  });

  it('through the queue, the failed batch is re-run item by item: only the bad item fails', async () => {
    expect(await claimKey(ctx.database.db, claimOf('a3'))).toBe(true);
    const [answered, claimed] = await Promise.allSettled([
      recordAnswer(ctx.database.db, 'partner:batching', 'a3', 'owner-a3', answer),
      claimKey(ctx.database.db, claimOf('b3', 'bad\u0000fingerprint')),
    ]);
    expect(answered).toEqual({ status: 'fulfilled', value: true });
    expect(claimed.status).toBe('rejected');
    expect(await rowOf('a3')).toMatchObject({ state: 'DONE', response_body: '{"ok":true}' });
    expect(await rowOf('b3')).toBeUndefined();
  });
});

describe("the key batches in the app's queues", () => {
  it('obey the queue bounds they are given (QUEUE_MAX_WAITING), not their own defaults', async () => {
    // Before, the key batches ignored the app's bounds: keyed requests of a CI run were refused with
    // 503 after the default 2 s though QUEUE_MAX_WAIT_MS allowed 30 s.
    const group = new CoalescerGroup({ maxWaiting: 1, maxWaitMs: 30_000 });
    // Two claims in one turn of the event loop: the first waits for its batch, the second finds
    // the queue full.
    const [first, second] = await Promise.allSettled([
      claimKey(ctx.database.db, claimOf('bound-1'), group),
      claimKey(ctx.database.db, claimOf('bound-2'), group),
    ]);
    expect(first).toEqual({ status: 'fulfilled', value: true });
    expect(second).toMatchObject({ status: 'rejected', reason: { errorName: 'SERVICE_UNAVAILABLE' } });
    expect(await rowOf('bound-2')).toBeUndefined();
  });

  it("join the app's group: seen by /readyz, the batch metrics and the webhooks' yield", async () => {
    const members = ctx.app.coalescers.slotMs().length;
    const created = await ctx.app.inject({
      method: 'POST',
      url: '/admin/v1/reward-assets',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'idempotency-key': 'group-member' },
      payload: { symbol: 'PTS', name: 'Points', decimals: 0 },
    });
    expect(created.statusCode).toBe(201);
    // The key queue is made at its first use, as a member of the app's group.
    expect(ctx.app.coalescers.slotMs().length).toBe(members + 1);
  });
});
