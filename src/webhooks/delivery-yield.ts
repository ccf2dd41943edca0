// How webhook delivery in the service's own process yields to its partner API (docs/webhooks.md,
// "Delivery under load"): whether the API is saturated, read from its batching queues' busy slots,
// with a hysteresis so that one lull in a crowd does not end a yield. The worker that acts on it is
// src/webhooks/delivery.ts.

/**
 * How the delivery in a service's own process yields to its partner API (docs/webhooks.md,
 * "Delivery under load"): while one of the API's batching queues keeps its database slots busy
 * SATURATED_SHARE of the time or more, a round sends only the messages that have been due for
 * `maxHoldMs` already; the others are held back until the API is calm or they are that late.
 */
export interface DeliveryYield {
  /** Each batching queue's busy slot milliseconds so far (CoalescerGroup.slotMs). */
  slotMs(): readonly number[];
  /** Longest a message is held back for the API, in ms; 0 holds nothing back. */
  maxHoldMs: number;
}

/**
 * The API counts as saturated when a queue's batch slots were busy at least this share of the
 * time. A flash crowd kept them busy 0.72-0.98 of it on the bench's machine (docs/performance.md,
 * "Fifteenth round"); one client sending reports one after another keeps at most one of the two
 * slots busy (BATCH_CONCURRENCY), half of them.
 */
export const SATURATED_SHARE = 0.75;
/** While yielding, how often a worker with nothing late enough to send looks again. */
export const YIELD_LOOK_MS = 100;
/** Looks in a row that find the API calm before a yield ends. */
const CALM_LOOKS = 2;

/**
 * Whether the API was saturated since the last call (the first: since the watch was made): the
 * busiest queue's growth of busy slot milliseconds against the monotonic clock.
 */
export function saturationWatch(
  slotMs: () => readonly number[],
  now: () => number = () => performance.now(),
) {
  let last = { at: now(), slots: slotMs() };
  return (): boolean => {
    const at = now();
    const slots = slotMs();
    const elapsed = at - last.at;
    const busiest = Math.max(0, ...slots.map((ms, i) => ms - (last.slots[i] ?? 0)));
    last = { at, slots };
    return elapsed > 0 && busiest / elapsed >= SATURATED_SHARE;
  };
}

/**
 * The worker's look before each round: whether it yields now. A look that finds the API saturated
 * starts a yield, which ends after CALM_LOOKS looks in a row find it calm. Never yields without
 * `yieldTo` or with a `maxHoldMs` of 0.
 */
export function yieldLooks(yieldTo: DeliveryYield | undefined): () => boolean {
  if (yieldTo === undefined || yieldTo.maxHoldMs <= 0) return () => false;
  const saturated = saturationWatch(yieldTo.slotMs);
  let yielding = false;
  let calmLooks = 0;
  return () => {
    const busy = saturated();
    if (busy) calmLooks = 0;
    if (!yielding) yielding = busy;
    else if (!busy && ++calmLooks >= CALM_LOOKS) yielding = false;
    return yielding;
  };
}
