import { describe, expect, it } from 'vitest';
import { TtlCache } from './ttl-cache.ts';

describe('TtlCache', () => {
  it('loads once per key while fresh, shares concurrent loads, and reloads after the TTL', async () => {
    const cache = new TtlCache<number>(40);
    let loads = 0;
    const load = async () => ++loads;
    const [a, b] = await Promise.all([cache.get('k', load), cache.get('k', load)]);
    expect([a, b, loads]).toEqual([1, 1, 1]);
    expect(await cache.get('k', load)).toBe(1);
    await new Promise((r) => setTimeout(r, 60));
    expect(await cache.get('k', load)).toBe(2);
  });

  it('forgets a failed load and everything on clear', async () => {
    const cache = new TtlCache<string>(10_000);
    await expect(cache.get('k', async () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(await cache.get('k', async () => 'up')).toBe('up');
    cache.clear();
    expect(await cache.get('k', async () => 'again')).toBe('again');
  });

  it("lets a caller that must not wait for another caller's load (inside a transaction) load on its own", async () => {
    const cache = new TtlCache<string>(10_000);
    let release: (value: string) => void = () => {};
    const slow = cache.get('k', () => new Promise<string>((resolve) => (release = resolve)));
    // The first load is still in flight: a joining caller waits for it, a non-joining one does not.
    const joined = cache.get('k', async () => 'never');
    expect(await cache.get('k', async () => 'own', { joinPending: false })).toBe('own');
    release('first');
    expect(await slow).toBe('first');
    expect(await joined).toBe('first');
    // Settled and fresh: everybody gets the cached value without loading.
    expect(await cache.get('k', async () => 'again', { joinPending: false })).toBe('own');
  });

  it('stays bounded', async () => {
    const cache = new TtlCache<number>(10_000, 3);
    for (let i = 0; i < 10; i++) await cache.get(String(i), async () => i);
    expect(cache.size).toBeLessThanOrEqual(3);
  });
});
