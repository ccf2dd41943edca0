// A circuit breaker in front of a counter store that may be away (Redis): after a failure the store
// is skipped for a cool-down, so requests fail open at once instead of each waiting out a timeout or
// a reconnect; then one call at a time probes it, and its first answer closes the breaker again.
import type { CounterStore } from './counters.ts';

/** Thrown at once, without asking the store, while the breaker is open. */
export class CountersUnavailable extends Error {
  constructor() {
    super('rate-limit counters unavailable (breaker open)');
    this.name = 'CountersUnavailable';
  }
}

export interface BreakerOptions {
  /** How long the store is skipped after a failure before one call probes it again. */
  coolDownMs: number;
  /** Called once when the breaker opens (the store failed while it was closed). */
  onOpen(err: unknown): void;
  /** Called once when a probe succeeds and the breaker closes. */
  onClose(): void;
  now?: () => number;
}

export interface BrokenCounterStore extends CounterStore {
  /** Opens the breaker from outside (e.g. the Redis client lost its connection). */
  trip(err: unknown): void;
  /** Lets the next call probe the store now (e.g. the Redis client is connected again). */
  probeNow(): void;
  readonly isOpen: boolean;
}

export function withBreaker(store: CounterStore, options: BreakerOptions): BrokenCounterStore {
  const now = options.now ?? Date.now;
  let open = false;
  let retryAt = 0;
  let probing = false;

  const trip = (err: unknown) => {
    retryAt = now() + options.coolDownMs;
    if (open) return;
    open = true;
    options.onOpen(err);
  };

  return {
    async hit(key, windowMs, hits) {
      if (!open) {
        try {
          return await store.hit(key, windowMs, hits);
        } catch (err) {
          trip(err);
          throw err;
        }
      }
      if (probing || now() < retryAt) throw new CountersUnavailable();
      probing = true;
      try {
        const state = await store.hit(key, windowMs, hits);
        open = false;
        options.onClose();
        return state;
      } catch (err) {
        retryAt = now() + options.coolDownMs;
        throw err;
      } finally {
        probing = false;
      }
    },
    purgeExpired: () => (open ? Promise.resolve(0) : store.purgeExpired()),
    close: () => store.close(),
    trip,
    probeNow() {
      retryAt = 0;
    },
    get isOpen() {
      return open;
    },
  };
}
