import fc from 'fast-check';
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it, vi } from 'vitest';
import { FastCounter, FastHistogram } from './fast-metrics.ts';

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

function pair(labelNames: string[]) {
  const plainRegistry = new Registry();
  const fastRegistry = new Registry();
  const config = { name: 'h_seconds', help: 'h', labelNames, buckets: BUCKETS };
  const plain = new Histogram({ ...config, registers: [plainRegistry] });
  const fast = new FastHistogram({ ...config, registers: [fastRegistry] });
  return { plain, fast, plainRegistry, fastRegistry };
}

type Step =
  | { kind: 'observe'; labels: Record<string, string | number>; value: number }
  | { kind: 'child'; labels: [string, string]; value: number }
  | { kind: 'reset' }
  | { kind: 'zero'; labels: Record<string, string> }
  | { kind: 'remove'; labels: Record<string, string> };

const route = fc.constantFrom('/v1/achieve', '/v1/mission-users', '/healthz');
const method = fc.constantFrom('GET', 'POST');
const value = fc.oneof(
  fc.constantFrom(...BUCKETS, 0, -1, 11, 1e-9, 0.30000000000000004),
  fc.double({ min: -1, max: 20, noNaN: true }),
);
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 20,
    arbitrary: fc.record({
      kind: fc.constant('observe' as const),
      labels: fc.record({ route, method }),
      value,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('observe' as const),
      labels: fc.oneof(fc.record({ route }), fc.constant({ route: 200, method: 'GET' })),
      value,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('child' as const), labels: fc.tuple(route, method), value }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'reset' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('zero' as const), labels: fc.record({ route, method }) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('remove' as const), labels: fc.record({ route, method }) }),
  },
);

function apply(histogram: Histogram<string>, s: Step): void {
  if (s.kind === 'observe') histogram.observe(s.labels, s.value);
  else if (s.kind === 'child') histogram.labels(...s.labels).observe(s.value);
  else if (s.kind === 'reset') histogram.reset();
  else if (s.kind === 'zero') histogram.zero(s.labels);
  else histogram.remove(s.labels);
}

describe('FastHistogram', () => {
  it('exposes exactly what a prom-client Histogram does after the same calls', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 60 }), async (steps) => {
        const { plain, fast, plainRegistry, fastRegistry } = pair(['route', 'method']);
        for (const s of steps) {
          apply(plain, s);
          apply(fast, s);
        }
        expect(await fastRegistry.metrics()).toBe(await plainRegistry.metrics());
        expect(await fast.get()).toEqual(await plain.get());
      }),
      { numRuns: 300 },
    );
  });

  it('without labels, too', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(value, { maxLength: 40 }), async (values) => {
        const { plain, fast, plainRegistry, fastRegistry } = pair([]);
        for (const v of values) {
          plain.observe(v);
          fast.observe(v);
        }
        expect(await fastRegistry.metrics()).toBe(await plainRegistry.metrics());
      }),
      { numRuns: 200 },
    );
  });

  it('refuses what prom-client refuses, with its errors', () => {
    const { plain, fast } = pair(['route']);
    const calls: Array<(h: Histogram<string>) => void> = [
      (h) => h.observe({ route: 'a', other: 'b' }, 1),
      (h) => h.observe({ route: 'a' }, Number.NaN),
      (h) => h.observe({ route: 'a' }, Number.POSITIVE_INFINITY),
    ];
    for (const call of calls) {
      let expected: unknown;
      try {
        call(plain);
      } catch (error) {
        expected = error;
      }
      expect(expected).toBeInstanceOf(Error);
      expect(() => call(fast)).toThrow((expected as Error).message);
    }
  });

  it("does not run prom-client's observe for a well-formed call, only for a refused one", () => {
    const proto = Histogram.prototype as unknown as { observeWithoutExemplar: (...args: unknown[]) => void };
    const plainObserve = vi.spyOn(proto, 'observeWithoutExemplar');
    try {
      const { fast } = pair(['route', 'method']);
      for (let i = 0; i < 10; i++) fast.observe({ route: '/a', method: 'GET' }, 0.01 * i);
      expect(plainObserve).not.toHaveBeenCalled();
      expect(() => fast.observe({ route: '/a', method: 'GET' }, Number.NaN)).toThrow();
      expect(plainObserve).toHaveBeenCalledTimes(1);
    } finally {
      plainObserve.mockRestore();
    }
  });
});

describe('FastCounter', () => {
  type CounterStep =
    | { kind: 'inc'; labels: Record<string, string | number> | undefined; value: number | undefined }
    | { kind: 'child'; labels: [string, string]; value: number | undefined }
    | { kind: 'reset' }
    | { kind: 'remove'; labels: Record<string, string> };
  const amount = fc.option(fc.oneof(fc.nat(5), fc.double({ min: 0, max: 3, noNaN: true })), {
    nil: undefined,
  });
  const counterStep: fc.Arbitrary<CounterStep> = fc.oneof(
    {
      weight: 20,
      arbitrary: fc.record({
        kind: fc.constant('inc' as const),
        labels: fc.record({ route, method }),
        value: amount,
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('inc' as const),
        labels: fc.oneof(fc.record({ route }), fc.constant({ route: 200, method: 'GET' })),
        value: amount,
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('child' as const),
        labels: fc.tuple(route, method),
        value: amount,
      }),
    },
    { weight: 1, arbitrary: fc.constant({ kind: 'reset' as const }) },
    {
      weight: 1,
      arbitrary: fc.record({ kind: fc.constant('remove' as const), labels: fc.record({ route, method }) }),
    },
  );
  function applyCounter(counter: Counter<string>, s: CounterStep): void {
    if (s.kind === 'inc') {
      if (s.labels === undefined) counter.inc(s.value);
      else counter.inc(s.labels, s.value);
    } else if (s.kind === 'child') counter.labels(...s.labels).inc(s.value);
    else if (s.kind === 'reset') counter.reset();
    else counter.remove(s.labels);
  }
  function counters(labelNames: string[]) {
    const plainRegistry = new Registry();
    const fastRegistry = new Registry();
    const config = { name: 'c_total', help: 'c', labelNames };
    return {
      plain: new Counter({ ...config, registers: [plainRegistry] }),
      fast: new FastCounter({ ...config, registers: [fastRegistry] }),
      plainRegistry,
      fastRegistry,
    };
  }

  it('exposes exactly what a prom-client Counter does after the same calls', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(counterStep, { maxLength: 60 }), async (steps) => {
        const { plain, fast, plainRegistry, fastRegistry } = counters(['route', 'method']);
        for (const s of steps) {
          applyCounter(plain, s);
          applyCounter(fast, s);
        }
        expect(await fastRegistry.metrics()).toBe(await plainRegistry.metrics());
        expect(await fast.get()).toEqual(await plain.get());
      }),
      { numRuns: 300 },
    );
  });

  it('without labels, too', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(amount, { maxLength: 20 }), async (amounts) => {
        const { plain, fast, plainRegistry, fastRegistry } = counters([]);
        for (const a of amounts) {
          plain.inc(a);
          fast.inc(a);
        }
        expect(await fastRegistry.metrics()).toBe(await plainRegistry.metrics());
      }),
      { numRuns: 100 },
    );
  });

  it('refuses what prom-client refuses, with its errors', () => {
    const { plain, fast } = counters(['route']);
    const calls: Array<(c: Counter<string>) => void> = [
      (c) => c.inc({ route: 'a', other: 'b' }, 1),
      (c) => c.inc({ route: 'a' }, -1),
      (c) => c.inc({ route: 'a' }, Number.POSITIVE_INFINITY),
    ];
    for (const call of calls) {
      let expected: unknown;
      try {
        call(plain);
      } catch (error) {
        expected = error;
      }
      expect(expected).toBeInstanceOf(Error);
      expect(() => call(fast)).toThrow((expected as Error).message);
    }
  });

  it("does not run prom-client's inc for a well-formed call on a known label set", () => {
    const proto = Counter.prototype as unknown as { incWithoutExemplar: (...args: unknown[]) => void };
    const plainInc = vi.spyOn(proto, 'incWithoutExemplar');
    try {
      const { fast } = counters(['route', 'method']);
      fast.inc({ route: '/a', method: 'GET' });
      const first = plainInc.mock.calls.length;
      for (let i = 0; i < 10; i++) fast.inc({ route: '/a', method: 'GET' }, i);
      expect(plainInc).toHaveBeenCalledTimes(first);
    } finally {
      plainInc.mockRestore();
    }
  });
});
