// The breaker in front of the Redis counters: a failure opens it (reported once), calls then fail
// without reaching the store until the cool-down ends, one call at a time probes, and a probe's
// answer closes it.
import { describe, expect, it } from 'vitest';
import { CountersUnavailable, withBreaker } from './counter-breaker.ts';
import type { CounterStore } from './counters.ts';

function fakeStore() {
  const state = { up: true, calls: 0, pending: undefined as (() => void) | undefined, hold: false };
  const store: CounterStore = {
    async hit() {
      state.calls++;
      if (state.hold) await new Promise<void>((resolve) => (state.pending = resolve));
      if (!state.up) throw new Error('ECONNREFUSED');
      return { count: 1, ttlMs: 1000 };
    },
    purgeExpired: async () => 0,
    close: async () => {},
  };
  return { store, state };
}

describe('counter breaker', () => {
  it('opens on a failure, skips the store during the cool-down, probes once, closes on an answer', async () => {
    const { store, state } = fakeStore();
    let now = 0;
    const events: string[] = [];
    const counters = withBreaker(store, {
      coolDownMs: 1000,
      now: () => now,
      onOpen: () => events.push('open'),
      onClose: () => events.push('close'),
    });
    await expect(counters.hit('k', 1000)).resolves.toEqual({ count: 1, ttlMs: 1000 });
    state.up = false;
    await expect(counters.hit('k', 1000)).rejects.toThrow('ECONNREFUSED');
    expect(counters.isOpen).toBe(true);
    for (let i = 0; i < 10; i++) await expect(counters.hit('k', 1000)).rejects.toThrow(CountersUnavailable);
    expect(state.calls).toBe(2);
    now = 1000;
    await expect(counters.hit('k', 1000)).rejects.toThrow('ECONNREFUSED');
    expect(state.calls).toBe(3);
    await expect(counters.hit('k', 1000)).rejects.toThrow(CountersUnavailable);
    now = 2000;
    state.up = true;
    state.hold = true;
    const probe = counters.hit('k', 1000);
    // While the probe waits, the others do not.
    await expect(counters.hit('k', 1000)).rejects.toThrow(CountersUnavailable);
    state.pending?.();
    await expect(probe).resolves.toEqual({ count: 1, ttlMs: 1000 });
    state.hold = false;
    expect(counters.isOpen).toBe(false);
    await expect(counters.hit('k', 1000)).resolves.toEqual({ count: 1, ttlMs: 1000 });
    expect(events).toEqual(['open', 'close']);
  });

  it('trip opens it once from outside; probeNow ends the cool-down early', async () => {
    const { store, state } = fakeStore();
    const events: string[] = [];
    const counters = withBreaker(store, {
      coolDownMs: 60_000,
      now: () => 0,
      onOpen: () => events.push('open'),
      onClose: () => events.push('close'),
    });
    counters.trip(new Error('connection lost'));
    counters.trip(new Error('connection lost again'));
    await expect(counters.hit('k', 1000)).rejects.toThrow(CountersUnavailable);
    expect(state.calls).toBe(0);
    counters.probeNow();
    await expect(counters.hit('k', 1000)).resolves.toEqual({ count: 1, ttlMs: 1000 });
    expect(events).toEqual(['open', 'close']);
  });
});
