// The seams where the service meets tracing, imported by the hot path (the coalescer, achieve, the
// payout worker). It imports nothing of OpenTelemetry: until src/telemetry/tracing.ts installs the
// real hooks (only when an OTLP endpoint is configured), every hook is a no-op that costs a call.

/** The active trace context of the caller, captured to run a batch in later (opaque). */
export type CapturedContext = unknown;

export interface TraceHooks {
  /** The W3C `traceparent` of the active span, to store with what this request creates; undefined when none. */
  traceparent(): string | undefined;
  /** The caller's active context, kept with an item that waits for a batch. */
  capture(): CapturedContext;
  /**
   * Runs one batch of coalesced work. One item: in that item's own context, so its statements
   * are children of its request. Several: in a span of the batch, child of the first item's
   * context, with a link to every item's span.
   */
  inBatch<T>(name: string, items: readonly CapturedContext[], run: () => Promise<T>): Promise<T>;
  /**
   * Runs `run` in a new root span named `name` with a link to each stored `traceparent` (of the
   * claims it pays), so the span points back at the requests that created them.
   */
  inLinkedSpan<T>(
    name: string,
    traceparents: ReadonlyArray<string | null | undefined>,
    run: () => Promise<T>,
  ): Promise<T>;
  /** Sends the spans still buffered and stops the exporter (at shutdown). */
  shutdown(): Promise<void>;
}

const off: TraceHooks = {
  traceparent: () => undefined,
  capture: () => undefined,
  inBatch: (_name, _items, run) => run(),
  inLinkedSpan: (_name, _traceparents, run) => run(),
  shutdown: async () => {},
};

let current: TraceHooks = off;

/** The hooks in force: no-ops unless tracing was started in this process. */
export function traceHooks(): TraceHooks {
  return current;
}

/** Installs the real hooks (src/telemetry/tracing.ts); called once, before the app is built. */
export function installTraceHooks(hooks: TraceHooks): void {
  current = hooks;
}

/** Flushes and stops tracing; a no-op when it is off. Process entry points await it before exiting. */
export function shutdownTracing(): Promise<void> {
  return current.shutdown();
}
