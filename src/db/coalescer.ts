// Natural batching ("group commit") of one kind of database work: items submitted while earlier
// batches are still running wait, and go together as the next batch. At low load a batch holds
// one item and starts at once; under load the batches grow, so the round trips, statements and
// commits per item shrink exactly when they matter. On this machine a round trip is the largest
// cost of a request (docs/performance.md). The queue is bounded in count and in waiting time, so
// that an overload is refused with 503 at once rather than queued without end (docs/security.md).
import { serviceOverloaded } from '../error-factories.ts';
import { traceHooks } from '../telemetry/hooks.ts';
import type { CapturedContext } from '../telemetry/hooks.ts';

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
  /**
   * The group whose bounds this coalescer takes and whose reading it joins (/readyz). Without one,
   * the default bounds apply.
   */
  group?: CoalescerGroup;
  /** Monotonic milliseconds (tests pass a manual clock). */
  now?: () => number;
  /** Names this kind of batch in traces (docs/operations.md "Traces"); default 'batch'. */
  name?: string;
}

/** How much may wait in one coalescer. */
export interface QueueBounds {
  /** Most items waiting for a batch; one more is refused at once (default 1024). */
  maxWaiting: number;
  /** Longest wait for a batch in ms; an item that waited longer is refused without touching the database (default 2000). */
  maxWaitMs: number;
}

export const DEFAULT_QUEUE_BOUNDS: QueueBounds = { maxWaiting: 1024, maxWaitMs: 2000 };

/** What a coalescer (or a group of them) is doing now: for /readyz and metrics. */
export interface QueueReading {
  waiting: number;
  running: number;
  /** Age in ms of the oldest item waiting for a batch (0 when none waits). */
  oldestWaitMs: number;
  /** Age in ms of the oldest batch still running (0 when none runs). */
  oldestRunMs: number;
  /** The queue is full: new items are being refused. */
  saturated: boolean;
  /** Work does not move: an item waited, or a batch ran, longer than the deadline. */
  stuck: boolean;
}

/** The refusal of an item the queue cannot take or that waited too long. */
function overloaded(reason: string) {
  return serviceOverloaded(reason);
}

const monotonicMs = () => performance.now();

interface Pending<I, O> {
  item: I;
  enqueuedAt: number;
  /** The submitter's trace context: a batch's statements belong to its requests' traces. */
  trace: CapturedContext;
  resolve(value: O): void;
  reject(reason: unknown): void;
}

export class Coalescer<I, O> {
  readonly #run: (items: I[]) => Promise<O[]>;
  readonly #keyOf: ((item: I) => string) | undefined;
  readonly #concurrency: number;
  readonly #maxBatch: number;
  readonly #bounds: QueueBounds;
  readonly #now: () => number;
  readonly #name: string;
  readonly #group: CoalescerGroup | undefined;
  #queue: Array<Pending<I, O>> = [];
  /** Start times of the batches running now. */
  readonly #runningSince = new Set<{ startedAt: number }>();
  #scheduled = false;
  #deadlineTimer: NodeJS.Timeout | undefined;
  /** Milliseconds the finished batches ran, summed. */
  #ranMs = 0;

  constructor(options: CoalescerOptions<I, O>) {
    this.#run = options.run;
    this.#keyOf = options.keyOf;
    this.#concurrency = options.concurrency ?? 2;
    this.#maxBatch = options.maxBatch ?? 256;
    this.#bounds = options.group?.bounds ?? DEFAULT_QUEUE_BOUNDS;
    this.#now = options.now ?? monotonicMs;
    this.#name = `${options.name ?? 'batch'} batch`;
    this.#group = options.group;
    if (!(this.#concurrency >= 1 && this.#maxBatch >= 1))
      throw new RangeError('concurrency and maxBatch must be at least 1');
    if (!(this.#bounds.maxWaiting >= 1 && this.#bounds.maxWaitMs >= 1))
      throw new RangeError('maxWaiting and maxWaitMs must be at least 1');
    options.group?.add(this);
  }

  submit(item: I): Promise<O> {
    if (this.#queue.length >= this.#bounds.maxWaiting) {
      return Promise.reject(overloaded(`${this.#queue.length} requests already wait for the database`));
    }
    return new Promise<O>((resolve, reject) => {
      this.#queue.push({ item, enqueuedAt: this.#now(), trace: traceHooks().capture(), resolve, reject });
      this.#schedule();
      this.#armDeadline();
    });
  }

  /** Items waiting for a batch (for tests and metrics). */
  get waiting(): number {
    return this.#queue.length;
  }

  get #running(): number {
    return this.#runningSince.size;
  }

  /**
   * Milliseconds its batch slots have been busy since it was made, over their number: read twice,
   * the difference over the time between is the share of that time its slots were busy (1: every
   * slot, all the time). Webhook delivery in the service's process yields to the partner API by it
   * (src/webhooks/delivery-yield.ts).
   */
  slotMs(): number {
    const now = this.#now();
    let ms = this.#ranMs;
    for (const run of this.#runningSince) ms += now - run.startedAt;
    return ms / this.#concurrency;
  }

  reading(): QueueReading {
    const now = this.#now();
    const oldestWaitMs = this.#queue.length > 0 ? now - (this.#queue[0] as Pending<I, O>).enqueuedAt : 0;
    let oldestRunMs = 0;
    for (const run of this.#runningSince) oldestRunMs = Math.max(oldestRunMs, now - run.startedAt);
    return {
      waiting: this.#queue.length,
      running: this.#running,
      oldestWaitMs,
      oldestRunMs,
      saturated: this.#queue.length >= this.#bounds.maxWaiting,
      stuck: oldestWaitMs > this.#bounds.maxWaitMs || oldestRunMs > this.#bounds.maxWaitMs,
    };
  }

  // Items past their deadline are refused when it passes, even while every batch slot is busy (a
  // batch stuck on a lock must not hold the requests queued behind it). The queue is in arrival
  // order, so one timer for its head is enough.
  #armDeadline(): void {
    if (this.#deadlineTimer !== undefined || this.#queue.length === 0) return;
    const head = this.#queue[0] as Pending<I, O>;
    const delay = Math.max(0, head.enqueuedAt + this.#bounds.maxWaitMs - this.#now()) + 1;
    this.#deadlineTimer = setTimeout(() => {
      this.#deadlineTimer = undefined;
      this.#refuseExpired();
      this.#armDeadline();
    }, delay);
    this.#deadlineTimer.unref();
  }

  #refuseExpired(): void {
    const now = this.#now();
    const expired = this.#queue.filter((p) => now - p.enqueuedAt > this.#bounds.maxWaitMs);
    if (expired.length === 0) return;
    this.#queue = this.#queue.filter((p) => now - p.enqueuedAt <= this.#bounds.maxWaitMs);
    const error = overloaded(`waited more than ${this.#bounds.maxWaitMs} ms for the database`);
    for (const pending of expired) pending.reject(error);
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
    this.#refuseExpired();
    while (this.#running < this.#concurrency && this.#queue.length > 0) {
      const batch = this.#take();
      const run = { startedAt: this.#now() };
      this.#runningSince.add(run);
      void this.#execute(batch).finally(() => {
        this.#runningSince.delete(run);
        const ranMs = this.#now() - run.startedAt;
        this.#ranMs += ranMs;
        this.#group?.batchDone(batch.length, ranMs);
        this.#drain();
      });
    }
    if (this.#queue.length === 0 && this.#deadlineTimer !== undefined) {
      clearTimeout(this.#deadlineTimer);
      this.#deadlineTimer = undefined;
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
      const results = await traceHooks().inBatch(
        this.#name,
        batch.map((p) => p.trace),
        () => this.#run(batch.map((p) => p.item)),
      );
      if (results.length !== batch.length)
        throw new Error(`batch of ${batch.length} answered ${results.length} results`);
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
          const [result] = await traceHooks().inBatch(this.#name, [pending.trace], () =>
            this.#run([pending.item]),
          );
          pending.resolve(result as O);
        } catch (itemError) {
          pending.reject(itemError);
        }
      }
    }
  }
}

/**
 * The coalescers of one server: they share the bounds, and their combined reading tells /readyz
 * whether this process's database work is moving.
 */
export class CoalescerGroup {
  readonly bounds: QueueBounds;
  readonly #members = new Set<{ reading(): QueueReading; slotMs(): number }>();
  /** Told of every batch a member finished, with its size and duration in ms (metrics). */
  onBatch: ((size: number, durationMs: number) => void) | undefined;

  constructor(bounds: QueueBounds = DEFAULT_QUEUE_BOUNDS) {
    this.bounds = bounds;
  }

  add(member: { reading(): QueueReading; slotMs(): number }): void {
    this.#members.add(member);
  }

  /** Each member's slotMs, in the order the members joined (a member never leaves). */
  slotMs(): number[] {
    return [...this.#members].map((member) => member.slotMs());
  }

  /** A member finished a batch (whatever its outcome). */
  batchDone(size: number, durationMs: number): void {
    try {
      this.onBatch?.(size, durationMs);
    } catch {
      // a metric's failure is no reason to fail a batch
    }
  }

  /** The sum of the queues, the oldest ages, and whether any member is saturated or stuck. */
  reading(): QueueReading {
    const total: QueueReading = {
      waiting: 0,
      running: 0,
      oldestWaitMs: 0,
      oldestRunMs: 0,
      saturated: false,
      stuck: false,
    };
    for (const member of this.#members) {
      const r = member.reading();
      total.waiting += r.waiting;
      total.running += r.running;
      total.oldestWaitMs = Math.max(total.oldestWaitMs, r.oldestWaitMs);
      total.oldestRunMs = Math.max(total.oldestRunMs, r.oldestRunMs);
      total.saturated ||= r.saturated;
      total.stuck ||= r.stuck;
    }
    return total;
  }
}
