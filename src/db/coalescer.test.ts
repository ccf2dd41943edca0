import { describe, expect, it } from 'vitest';
import { Coalescer } from './coalescer.ts';

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
    const coalescer = new Coalescer({ run: async (items: number[]) => (batches.push(items), items), concurrency: 1, maxBatch: 2 });
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
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([2, 'unlucky', 6]);
    expect(calls).toEqual([[1, 13, 3], [1], [13], [3]]);
  });

  it('fails the items of a batch that answers the wrong number of results', async () => {
    const coalescer = new Coalescer({ run: async () => [] as number[] });
    await expect(coalescer.submit(1)).rejects.toThrow('batch of 1 answered 0 results');
  });

  it('refuses a concurrency or batch size below one', () => {
    expect(() => new Coalescer({ run: async (items: number[]) => items, concurrency: 0 })).toThrow(RangeError);
    expect(() => new Coalescer({ run: async (items: number[]) => items, maxBatch: 0 })).toThrow(RangeError);
  });
});
