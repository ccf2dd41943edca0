// Natural batching ("group commit") of one kind of database work: items submitted while earlier
// batches are still running wait, and go together as the next batch. At low load a batch holds
// one item and starts at once; under load the batches grow, so the round trips, statements and
// commits per item shrink exactly when they matter. On this machine a round trip is the largest
// cost of a request (docs/performance.md).

export interface CoalescerOptions<I, O> {
  /** Runs one batch, all or nothing; answers one result per item, in the order given. */
  run(items: I[]): Promise<O[]>;
  /**
   * Items with the same key never share a batch: one statement may not touch a row twice
   * (`ON CONFLICT DO UPDATE`), so the second waits for the next batch.
   */
  keyOf?(item: I): string;
  /** Batches running at once (default 2). */
  concurrency?: number;
  /** Most items in one batch (default 256). */
  maxBatch?: number;
}

interface Pending<I, O> {
  item: I;
  resolve(value: O): void;
  reject(reason: unknown): void;
}

export class Coalescer<I, O> {
  readonly #run: (items: I[]) => Promise<O[]>;
  readonly #keyOf: ((item: I) => string) | undefined;
  readonly #concurrency: number;
  readonly #maxBatch: number;
  #queue: Array<Pending<I, O>> = [];
  #running = 0;
  #scheduled = false;

  constructor(options: CoalescerOptions<I, O>) {
    this.#run = options.run;
    this.#keyOf = options.keyOf;
    this.#concurrency = options.concurrency ?? 2;
    this.#maxBatch = options.maxBatch ?? 256;
    if (!(this.#concurrency >= 1 && this.#maxBatch >= 1)) throw new RangeError('concurrency and maxBatch must be at least 1');
  }

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      this.#schedule();
    });
  }

  /** Items waiting for a batch (for tests and metrics). */
  get waiting(): number {
    return this.#queue.length;
  }

  // The first batch waits for the end of the current I/O phase (setImmediate), so that requests
  // read from the sockets in the same turn of the event loop travel together.
  #schedule(): void {
    if (this.#scheduled || this.#running >= this.#concurrency) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.#drain();
    });
  }

  #drain(): void {
    while (this.#running < this.#concurrency && this.#queue.length > 0) {
      const batch = this.#take();
      this.#running++;
      void this.#execute(batch).finally(() => {
        this.#running--;
        this.#drain();
      });
    }
  }

  #take(): Array<Pending<I, O>> {
    if (this.#keyOf === undefined) return this.#queue.splice(0, this.#maxBatch);
    const batch: Array<Pending<I, O>> = [];
    const rest: Array<Pending<I, O>> = [];
    const keys = new Set<string>();
    for (const pending of this.#queue) {
      const key = this.#keyOf(pending.item);
      if (batch.length < this.#maxBatch && !keys.has(key)) {
        keys.add(key);
        batch.push(pending);
      } else {
        rest.push(pending);
      }
    }
    this.#queue = rest;
    return batch;
  }

  async #execute(batch: Array<Pending<I, O>>): Promise<void> {
    try {
      const results = await this.#run(batch.map((p) => p.item));
      if (results.length !== batch.length) throw new Error(`batch of ${batch.length} answered ${results.length} results`);
      batch.forEach((p, i) => p.resolve(results[i] as O));
    } catch (error) {
      if (batch.length === 1) {
        batch[0]?.reject(error);
        return;
      }
      // The batch was all or nothing, so nothing of it is written: run each item alone, so that
      // one bad item (a row that breaks a constraint, say) fails only its own request.
      for (const pending of batch) {
        try {
          const [result] = await this.#run([pending.item]);
          pending.resolve(result as O);
        } catch (itemError) {
          pending.reject(itemError);
        }
      }
    }
  }
}
