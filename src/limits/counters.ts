// Windowed hit counters shared by every process: in PostgreSQL (our own database, so PGlite too)
// or in Redis when REDIS_URL is set. The rate limits (src/http/rate-limits.ts) count with them.
import type { Kysely } from 'kysely';
import type { Redis } from 'ioredis';
import type { DB } from '../db/schema.ts';
import { Coalescer } from '../db/coalescer.ts';
import type { CoalescerGroup } from '../db/coalescer.ts';
import { addHits, deleteEndedCounters } from './counter-store.ts';

/** A counter after a hit: hits in the current window, and the time left in it. */
export interface CounterState {
  count: number;
  ttlMs: number;
}

export interface CounterStore {
  /**
   * Counts `hits` hits (default 1) on key; a window of windowMs starts with the first hit after the
   * last one ended. The count answered includes these hits.
   */
  hit(key: string, windowMs: number, hits?: number): Promise<CounterState>;
  /** Deletes counters whose window has ended; answers how many. */
  purgeExpired(): Promise<number>;
  close(): Promise<void>;
}

/**
 * Counters in the rate_limit_counters table (migration 0007; counter-store.ts). Concurrent hits are batched: one statement adds the
 * hits of a whole batch, so a partner's hot counter row is written once per batch, not per request.
 */
export function postgresCounters(db: Kysely<DB>, group?: CoalescerGroup): CounterStore {
  const coalescer = new Coalescer<{ key: string; windowMs: number; hits: number }, CounterState>({
    group,
    name: 'rate limit',
    run: async (items) => {
      const perKey = new Map<string, { hits: number; windowMs: number }>();
      for (const { key, windowMs, hits } of items) {
        const entry = perKey.get(key);
        if (entry) entry.hits += hits;
        else perKey.set(key, { hits, windowMs });
      }
      // Rows are locked in key order, so two processes' batches never deadlock on each other.
      const keys = [...perKey.keys()].sort();
      const rows = await addHits(
        db,
        keys.map((key) => ({ key, ...(perKey.get(key) as { hits: number; windowMs: number }) })),
      );
      const totals = new Map(
        rows.map((row) => [row.key, { count: Number(row.hits), ttlMs: Math.max(0, Number(row.ttl_ms)) }]),
      );
      // Each hit of a batch gets the count it would have seen alone: the batch's hits on a key
      // are added in arrival order, ending at the stored total.
      const seen = new Map<string, number>();
      return items.map(({ key, hits }) => {
        const total = totals.get(key) as CounterState;
        const before = (seen.get(key) ?? 0) + hits;
        seen.set(key, before);
        return { count: total.count - ((perKey.get(key)?.hits ?? hits) - before), ttlMs: total.ttlMs };
      });
    },
  });
  return {
    hit: (key, windowMs, hits = 1) => coalescer.submit({ key, windowMs, hits }),
    async purgeExpired() {
      // In slices, so that a large backlog never holds a long statement.
      return deleteEndedCounters(db, 10_000);
    },
    async close() {},
  };
}

// One round trip: add the hit, start the window's expiry with the first hit, answer both.
const HIT_SCRIPT = `
local count = redis.call('INCRBY', KEYS[1], ARGV[2])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}`;

type RedisWithHit = Redis & {
  rateLimitHit(key: string, windowMs: number, hits: number): Promise<[number, number]>;
};

/** Counters in Redis under prefix; Redis expires them itself, so there is nothing to purge. */
export function redisCounters(redis: Redis, prefix: string): CounterStore {
  redis.defineCommand('rateLimitHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
  const client = redis as RedisWithHit;
  return {
    async hit(key, windowMs, hits = 1) {
      const [count, ttlMs] = await client.rateLimitHit(prefix + key, windowMs, hits);
      return { count: Number(count), ttlMs: Number(ttlMs) };
    },
    purgeExpired: async () => 0,
    async close() {
      // QUIT waits for an answer; a Redis that is frozen never gives one.
      let timer: NodeJS.Timeout | undefined;
      const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, 1000)));
      await Promise.race([redis.quit().catch(() => undefined), bound]);
      clearTimeout(timer);
      redis.disconnect();
    },
  };
}
