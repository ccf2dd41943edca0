// The per-partner rate limit without a statement per call (docs/performance.md, "Rate-limit
// leases"). A process takes hits from the shared counter in leases: it adds a lease's worth of
// hits to the counter at once, then serves calls from it locally until it is used up or the
// counter's window ends. Every call served was counted in the shared counter before it ran, so
// all processes together never let more than the limit through in a window; the cost is that a
// partner may be refused a little early while other processes hold unused hits, and leases shrink
// as the count nears the limit (to one hit, which is exact), so that stays small. A refusal is
// remembered until the window ends: once the count is past the limit, nothing in the window can
// be allowed anyway.
import type { CounterStore } from '../limits/counters.ts';

export interface LeaseDecision {
  allowed: boolean;
  /** Time left in the counter's window, in ms. */
  ttlMs: number;
}

interface Lease {
  /** Hits this process may still serve, counted already. */
  left: number;
  /** Local time at which the counter's window ends (the lease with it). */
  until: number;
  /** The size of the next lease (grows while leases are used up quickly). */
  next: number;
  refused: boolean;
  refill: Promise<void> | undefined;
}

/** Largest lease: at most this many counted hits wait unused in one process. */
export const MAX_LEASE = 256;

export class PartnerLeases {
  readonly #leases = new Map<string, Lease>();
  readonly #counters: CounterStore;
  readonly #max: number;
  readonly #windowMs: number;
  readonly #now: () => number;

  constructor(counters: CounterStore, max: number, windowMs: number, now: () => number = Date.now) {
    this.#counters = counters;
    this.#max = max;
    this.#windowMs = windowMs;
    this.#now = now;
  }

  /** Counts one call on key; answers whether it is within the limit. */
  async take(key: string): Promise<LeaseDecision> {
    for (;;) {
      const now = this.#now();
      let lease = this.#leases.get(key);
      if (lease === undefined) {
        lease = { left: 0, until: 0, next: 1, refused: false, refill: undefined };
        this.#leases.set(key, lease);
      }
      if (now < lease.until) {
        if (lease.left > 0) {
          lease.left--;
          return { allowed: true, ttlMs: lease.until - now };
        }
        if (lease.refused) return { allowed: false, ttlMs: lease.until - now };
      }
      if (lease.refill === undefined) {
        const current = lease;
        lease.refill = this.#refill(key, current).finally(() => {
          current.refill = undefined;
        });
      }
      await lease.refill;
    }
  }

  async #refill(key: string, lease: Lease): Promise<void> {
    // A lease used up before its window ended asks for a larger one next time.
    const size = lease.next;
    const { count, ttlMs } = await this.#counters.hit(key, this.#windowMs, size);
    const before = count - size;
    const granted = Math.max(0, Math.min(size, this.#max - before));
    lease.left = granted;
    lease.until = this.#now() + ttlMs;
    lease.refused = granted === 0;
    // Near the limit, leases shrink so that unused hits held here stay a small part of what is left.
    const room = this.#max - Math.max(count, before + granted);
    lease.next = Math.max(1, Math.min(MAX_LEASE, size * 2, Math.floor(room / 16)));
    // Entries of partners that went quiet are dropped when their window is long over.
    if (this.#leases.size > 10_000) {
      const now = this.#now();
      for (const [k, l] of this.#leases) if (l.until < now && l.refill === undefined) this.#leases.delete(k);
    }
  }
}
