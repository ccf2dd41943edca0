import { describe, expect, it } from 'vitest';
import type { CounterStore } from '../limits/counters.ts';
import { MAX_LEASE, PartnerLeases } from './partner-leases.ts';

/** One shared counter (as PostgreSQL or Redis is to every process), each hit answered after a turn. */
function sharedCounters(now: () => number): CounterStore & { hits: Map<string, number> } {
  const hits = new Map<string, number>();
  const ends = new Map<string, number>();
  return {
    hits,
    async hit(key, windowMs, n = 1) {
      await new Promise((resolve) => setImmediate(resolve));
      if ((ends.get(key) ?? 0) <= now()) {
        hits.set(key, 0);
        ends.set(key, now() + windowMs);
      }
      hits.set(key, (hits.get(key) ?? 0) + n);
      return { count: hits.get(key) as number, ttlMs: (ends.get(key) as number) - now() };
    },
    purgeExpired: async () => 0,
    close: async () => {},
  };
}

describe('per-partner rate limit in leases', () => {
  it('is exact for a small limit: the fifth call of four allowed is refused', async () => {
    const counters = sharedCounters(Date.now);
    const leases = new PartnerLeases(counters, 4, 60_000);
    const decisions = [];
    for (let i = 0; i < 6; i++) decisions.push(await leases.take('p'));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, true, false, false]);
    expect(decisions[5]?.ttlMs).toBeGreaterThan(0);
  });

  it('never lets more than the limit through across processes, and refuses only a little early', async () => {
    const counters = sharedCounters(Date.now);
    const max = 5000;
    const processes = [1, 2, 3].map(() => new PartnerLeases(counters, max, 60_000));
    // Concurrent calls spread over three processes, far more than the limit.
    const decisions = await Promise.all(
      Array.from({ length: 9000 }, (_, i) => (processes[i % 3] as PartnerLeases).take('p')),
    );
    const allowed = decisions.filter((d) => d.allowed).length;
    expect(allowed).toBeLessThanOrEqual(max);
    // Hits held unused by the other processes are at most a few small leases near the limit.
    expect(allowed).toBeGreaterThanOrEqual(max - 3 * MAX_LEASE);
    // Far fewer counter writes than calls.
    expect(counters.hits.get('p')).toBeGreaterThanOrEqual(max);
  });

  it('allows again once the window has ended', async () => {
    let now = 1_000_000;
    const counters = sharedCounters(() => now);
    const leases = new PartnerLeases(counters, 2, 1000, () => now);
    expect((await leases.take('p')).allowed).toBe(true);
    expect((await leases.take('p')).allowed).toBe(true);
    expect((await leases.take('p')).allowed).toBe(false);
    now += 1001;
    expect((await leases.take('p')).allowed).toBe(true);
  });

  it('counts partners apart', async () => {
    const leases = new PartnerLeases(sharedCounters(Date.now), 1, 60_000);
    expect((await leases.take('a')).allowed).toBe(true);
    expect((await leases.take('b')).allowed).toBe(true);
    expect((await leases.take('a')).allowed).toBe(false);
  });
});
