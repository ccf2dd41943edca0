import { describe, expect, it } from 'vitest';
import { Coalescer, CoalescerGroup } from './coalescer.ts';

/** A run function that records its batches and answers when released. */
function recorder<I>() {
  const batches: I[][] = [];
  const gates: Array<() => void> = [];
  return {
    batches,
    release: () => gates.shift()?.(),
    run: async (items: I[]) => {
      batches.push(items);
      await new Promise<void>((resolve) => gates.push(resolve));
      return items.map((item) => `ok:${String(item)}`);
    },
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('Coalescer', () => {
  it('sends items submitted in one turn together, and answers each its own result', async () => {
    const r = recorder<number>();
    const coalescer = new Coalescer({ run: r.run, concurrency: 1 });
    const answers = Promise.all([1, 2, 3].map((n) => coalescer.submit(n)));
    await tick();
    r.release();
    expect(await answers).toEqual(['ok:1', 'ok:2', 'ok:3']);
    expect(r.batches).toEqual([[1, 2, 3]]);
  });

  it('queues while the batches in flight are at the limit, then sends the queue as one batch', async () => {
    const r = recorder<number>();
    const coalescer = new Coalescer({ run: r.run, concurrency: 2 });
    const first = coalescer.submit(1);
    await tick();
    const second = coalescer.submit(2);
    await tick();
    const rest = [3, 4, 5].map((n) => coalescer.submit(n));
    await tick();
    expect(r.batches).toEqual([[1], [2]]);
    expect(coalescer.waiting).toBe(3);
    r.release();
    await first;
    await tick();
    expect(r.batches).toEqual([[1], [2], [3, 4, 5]]);
    r.release();
    r.release();
    expect(await Promise.all([second, ...rest])).toEqual(['ok:2', 'ok:3', 'ok:4', 'ok:5']);
  });

  it('never puts two items with the same key in one batch, and keeps their order', async () => {
    const r = recorder<string>();
    const coalescer = new Coalescer({ run: r.run, concurrency: 1, keyOf: (s) => s.split('#')[0] as string });
    const answers = Promise.all(['a#1', 'b#1', 'a#2', 'c#1', 'a#3'].map((s) => coalescer.submit(s)));
    for (let i = 0; i < 3; i++) {
      await tick();
      r.release();
    }
    await answers;
    expect(r.batches).toEqual([['a#1', 'b#1', 'c#1'], ['a#2'], ['a#3']]);
  });

  it('caps a batch at maxBatch', async () => {
    const batches: number[][] = [];
    const coalescer = new Coalescer({
      run: async (items: number[]) => (batches.push(items), items),
      concurrency: 1,
      maxBatch: 2,
    });
    expect(await Promise.all([1, 2, 3, 4, 5].map((n) => coalescer.submit(n)))).toEqual([1, 2, 3, 4, 5]);
    expect(batches).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('when a batch fails, runs each item alone so that only the bad one fails', async () => {
    const calls: number[][] = [];
    const coalescer = new Coalescer({
      run: async (items: number[]) => {
        calls.push(items);
        if (items.includes(13)) throw new Error('unlucky');
        return items.map((n) => n * 2);
      },
    });
    const results = await Promise.allSettled([1, 13, 3].map((n) => coalescer.submit(n)));
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([
      2,
      'unlucky',
      6,
    ]);
    expect(calls).toEqual([[1, 13, 3], [1], [13], [3]]);
  });

  it('fails the items of a batch that answers the wrong number of results', async () => {
    const coalescer = new Coalescer({ run: async () => [] as number[] });
    await expect(coalescer.submit(1)).rejects.toThrow('batch of 1 answered 0 results');
  });

  it('refuses a concurrency or batch size below one', () => {
    expect(() => new Coalescer({ run: async (items: number[]) => items, concurrency: 0 })).toThrow(
      RangeError,
    );
    expect(() => new Coalescer({ run: async (items: number[]) => items, maxBatch: 0 })).toThrow(RangeError);
  });
});

describe('Coalescer bounds', () => {
  const busy = 'the service is overloaded';

  it('refuses an item at once when maxWaiting items already wait, with SERVICE_UNAVAILABLE', async () => {
    const r = recorder<number>();
    const group = new CoalescerGroup({ maxWaiting: 2, maxWaitMs: 60_000 });
    const coalescer = new Coalescer({ run: r.run, concurrency: 1, group });
    const first = coalescer.submit(1);
    await tick();
    // 1 runs; 2 and 3 wait; 4 finds the queue full.
    const waiting = [coalescer.submit(2), coalescer.submit(3)];
    const refused = coalescer.submit(4);
    await expect(refused).rejects.toMatchObject({ errorName: 'SERVICE_UNAVAILABLE', status: 503 });
    await expect(refused).rejects.toThrow(busy);
    expect(coalescer.reading()).toMatchObject({ waiting: 2, running: 1, saturated: true });
    expect(group.reading()).toMatchObject({ waiting: 2, running: 1, saturated: true });
    r.release();
    await first;
    await tick();
    r.release();
    expect(await Promise.all(waiting)).toEqual(['ok:2', 'ok:3']);
    expect(r.batches).toEqual([[1], [2, 3]]);
    expect(coalescer.reading()).toMatchObject({ waiting: 0, running: 0, saturated: false, stuck: false });
  });

  it('refuses an item that waited longer than maxWaitMs before it reaches run, and reports stuck meanwhile', async () => {
    let now = 0;
    const r = recorder<number>();
    const group = new CoalescerGroup({ maxWaiting: 100, maxWaitMs: 50 });
    const coalescer = new Coalescer({ run: r.run, concurrency: 1, group, now: () => now });
    const first = coalescer.submit(1);
    await tick();
    const late = coalescer.submit(2);
    const lateOutcome = late.then(
      () => 'answered',
      (error: Error) => error.message,
    );
    now = 40;
    expect(group.reading()).toMatchObject({ waiting: 1, oldestWaitMs: 40, oldestRunMs: 40, stuck: false });
    now = 51;
    expect(group.reading()).toMatchObject({ oldestWaitMs: 51, stuck: true });
    r.release();
    await first;
    await tick();
    expect(await lateOutcome).toContain('waited more than 50 ms');
    // The expired item never reached the database.
    expect(r.batches).toEqual([[1]]);
    expect(coalescer.reading()).toMatchObject({ waiting: 0, stuck: false });
  });

  it('refuses expired items on time even while every batch slot stays busy', async () => {
    const r = recorder<number>();
    const coalescer = new Coalescer({
      run: r.run,
      concurrency: 1,
      group: new CoalescerGroup({ maxWaiting: 10, maxWaitMs: 20 }),
    });
    const first = coalescer.submit(1);
    await tick();
    // The first batch never finishes during this test (a lock held, say): the waiter is refused anyway.
    await expect(coalescer.submit(2)).rejects.toMatchObject({ errorName: 'SERVICE_UNAVAILABLE' });
    expect(coalescer.reading()).toMatchObject({ waiting: 0, running: 1, stuck: true });
    r.release();
    expect(await first).toBe('ok:1');
    expect(r.batches).toEqual([[1]]);
  });

  it('counts the time its batch slots were busy, over their number, running batches included', async () => {
    const r = recorder<number>();
    let now = 1_000;
    const group = new CoalescerGroup({ maxWaiting: 100, maxWaitMs: 60_000 });
    const coalescer = new Coalescer({ run: r.run, concurrency: 2, group, now: () => now });
    const idle = new Coalescer({ run: r.run, concurrency: 1, group, now: () => now });
    now += 5; // nothing runs yet
    expect(group.slotMs()).toEqual([0, 0]);
    const first = coalescer.submit(1);
    await tick();
    now += 10; // one slot of two busy for 10 ms
    expect(coalescer.slotMs()).toBe(5);
    const second = coalescer.submit(2);
    await tick();
    now += 20; // both busy for 20 ms
    expect(coalescer.slotMs()).toBe(25);
    r.release();
    await first;
    await tick(); // the first batch's slot is freed after its items are answered
    now += 30; // the second alone, still running
    expect(group.slotMs()).toEqual([40, 0]);
    r.release();
    await second;
    await tick();
    now += 100; // nothing runs
    expect(group.slotMs()).toEqual([40, 0]);
    expect(idle.slotMs()).toBe(0);
  });

  it('refuses bounds below one', () => {
    const group = new CoalescerGroup({ maxWaiting: 0, maxWaitMs: 10 });
    expect(() => new Coalescer({ run: async (items: number[]) => items, group })).toThrow(RangeError);
  });
});
