// An operator write pins its queries to one transaction through an AsyncLocalStorage, which on
// Node 20 runs on async_hooks: while it is on, every promise of the process calls its hooks, the
// partner hot path's too (about 6% of achieve's CPU; docs/performance.md, "Ninth round"). It is on
// only while a write is in flight, and each write keeps its transaction however the others end.
import { executionAsyncId } from 'node:async_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partnerCall, setupMission, startTestApp } from './harness.ts';
import type { TestContext } from './harness.ts';
import { operatorWrites } from '../src/audit/operator-writes.ts';
import { createPartner } from '../src/partners/service.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await startTestApp();
});
afterAll(() => ctx.close());

// With promise hooks off, a continuation after `await` runs with no async id of its own (0); with
// them on, every promise gets a fresh id.
async function asyncIdAfterAwait(): Promise<number> {
  await null;
  return executionAsyncId();
}
const promiseHooksOn = async () => (await asyncIdAfterAwait()) !== 0 || (await asyncIdAfterAwait()) !== 0;

const partnersNamed = async (name: string) =>
  (await ctx.database.db.selectFrom('partners').select('id').where('name', '=', name).execute()).length;

describe('operator writes and async hooks', () => {
  it('leaves promise hooks off once operator writes are done, so partner calls pay nothing for them', async () => {
    expect(await promiseHooksOn()).toBe(false);
    const setup = await setupMission(ctx); // operator writes through the admin API
    const created = await Promise.all(
      ['A', 'B', 'C'].map((name) => ctx.admin('POST', '/admin/v1/partners', { name })),
    );
    expect(created.map((r) => r.statusCode)).toEqual([201, 201, 201]);
    expect(await promiseHooksOn()).toBe(false);
    const achieved = await partnerCall(ctx, setup, {
      method: 'POST',
      url: '/v1/achieve',
      body: { partnerUid: 'user-1', missionKey: setup.missionKey, completed: false },
    });
    expect(achieved.statusCode).toBe(200);
    expect(await promiseHooksOn()).toBe(false);
  });

  it('keeps a write in its transaction after another write, started with it, has ended', async () => {
    const run = operatorWrites(ctx.database.db, ctx.clock);
    const owner = (await ctx.admin('GET', '/admin/v1/audit-events')).json().items[0].actor.id as string;
    const write = (requestId: string) => ({ adminId: owner, requestId, route: 'POST /test', params: {} });
    let release!: () => void;
    const hold = new Promise<void>((resolve) => (release = resolve));
    const first = run(write('req-first'), async () => {
      await createPartner(ctx.database.db, ctx.clock, { name: 'Kept' });
      await hold;
    });
    const firstDone = first.then(() => undefined);
    // Started while the first is in flight (on PGlite, one connection, its BEGIN waits for it).
    const second = run(write('req-second'), async () => {
      await firstDone;
      // The first write has ended; this one's queries must still be in its own transaction.
      expect(await promiseHooksOn()).toBe(true);
      await createPartner(ctx.database.db, ctx.clock, { name: 'Rolled back' });
      throw new Error('the second write fails after its insert');
    });
    release();
    await first;
    await expect(second).rejects.toThrow('the second write fails after its insert');
    expect(await partnersNamed('Kept')).toBe(1);
    expect(await partnersNamed('Rolled back')).toBe(0);
    expect(await promiseHooksOn()).toBe(false);
  });
});
