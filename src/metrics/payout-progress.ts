// Whether the payout worker of this process makes progress: it tells this tracker of every batch,
// and /readyz asks it (with the age of the oldest waiting claim) whether payouts are stuck here.

export interface PayoutBatchOutcome {
  /** Claims the batch handled (paid, failed or handed to the chain outbox). */
  handled: number;
  /** How long it took, in ms. */
  durationMs: number;
  /** It finished without an error. */
  ok: boolean;
}

export class PayoutProgress {
  /** Monotonic ms of the last batch that finished without an error (the start counts as one). */
  #lastSuccessAt: number;
  readonly #now: () => number;
  readonly #listeners = new Set<(outcome: PayoutBatchOutcome) => void>();

  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
    this.#lastSuccessAt = now();
  }

  /** The worker finished a batch (whatever its outcome). */
  batchDone(outcome: PayoutBatchOutcome): void {
    if (outcome.ok) this.#lastSuccessAt = this.#now();
    for (const listener of this.#listeners) {
      try {
        listener(outcome);
      } catch {
        // a metric's failure is no reason to stop the worker
      }
    }
  }

  /** Milliseconds since the last batch that finished without an error. */
  msSinceLastSuccess(): number {
    return this.#now() - this.#lastSuccessAt;
  }

  /** Calls listener with every batch's outcome (metrics); answers a function that stops it. */
  onBatch(listener: (outcome: PayoutBatchOutcome) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
