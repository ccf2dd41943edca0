// A small read-through cache: entries live `ttlMs` at most (monotonic time), concurrent misses
// for one key share one load, and a failed load is not kept.

export class TtlCache<V> {
  readonly #entries = new Map<string, { expires: number; value: Promise<V>; settled: boolean }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  /**
   * The value of `key`, loaded on a miss. With `joinPending: false` a load in flight for the key
   * (started by another caller) is not waited for; this caller loads on its own. A caller inside a
   * transaction needs that: on PGlite, the other load may be waiting for the one connection that
   * the transaction holds.
   */
  get(key: string, load: () => Promise<V>, options: { joinPending?: boolean } = {}): Promise<V> {
    const hit = this.#entries.get(key);
    if (hit && hit.expires > performance.now() && (hit.settled || options.joinPending !== false))
      return hit.value;
    return this.reload(key, load);
  }

  /** Loads `key` afresh whatever the cache holds, and keeps the new value for the next callers. */
  reload(key: string, load: () => Promise<V>): Promise<V> {
    const now = performance.now();
    if (this.#entries.size >= this.maxEntries) this.#entries.clear();
    const value = load();
    const entry = { expires: now + this.ttlMs, value, settled: false };
    this.#entries.set(key, entry);
    value.then(
      () => {
        entry.settled = true;
      },
      () => {
        if (this.#entries.get(key) === entry) this.#entries.delete(key);
      },
    );
    return value;
  }

  clear(): void {
    this.#entries.clear();
  }

  get size(): number {
    return this.#entries.size;
  }
}
