// Load shedding (docs/security.md, "Load shedding and queues"): under overload (event-loop delay,
// memory) requests are refused with 503 at once; the batching queues are bounded (CoalescerGroup);
// and every 503 or 429 tells the client when to retry.
import fp from 'fastify-plugin';
import underPressure from '@fastify/under-pressure';
import type { FastifyInstance } from 'fastify';
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import { serviceOverloaded } from '../error-factories.ts';
import { CoalescerGroup } from '../db/coalescer.ts';
import type { QueueReading } from '../db/coalescer.ts';

/** How often under-pressure samples the event loop (its default, set here because the grace uses it). */
const SAMPLE_INTERVAL_MS = 1000;

declare module 'fastify' {
  interface FastifyInstance {
    /** The batching queues of this server: their shared bounds and their reading (for /readyz). */
    coalescers: CoalescerGroup;
    /** The share of the last seconds this process spent collecting garbage (for /readyz). */
    gcPressure: GcPressure;
    /** Connections closed as they were accepted, beyond LOAD_SHED_MAX_CONNECTIONS (metrics). */
    connectionsRefused(): number;
  }
}

/** Seconds of history the garbage-collection share is taken over. */
const GC_WINDOW_SECONDS = 5;

/**
 * The share of wall time the process spent in garbage collection over the last few seconds. A heap
 * at its limit (--max-old-space-size) makes V8 collect back to back: the process is saturated by its
 * own work, serves a fraction of its usual rate and should get no traffic (issue #28, fault 10).
 */
export class GcPressure {
  /** Milliseconds of collection per whole second of the monotonic clock, the last GC_WINDOW_SECONDS. */
  readonly #buckets = new Map<number, number>();
  readonly #observer: PerformanceObserver;

  constructor() {
    this.#observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        const second = Math.floor((entry.startTime + entry.duration) / 1000);
        this.#buckets.set(second, (this.#buckets.get(second) ?? 0) + entry.duration);
      }
      const oldest = Math.floor(performance.now() / 1000) - GC_WINDOW_SECONDS;
      for (const second of this.#buckets.keys()) if (second < oldest) this.#buckets.delete(second);
    });
    this.#observer.observe({ entryTypes: ['gc'] });
  }

  /** Percent of the last GC_WINDOW_SECONDS whole seconds spent collecting. */
  percent(): number {
    const now = Math.floor(performance.now() / 1000);
    let ms = 0;
    for (let second = now - GC_WINDOW_SECONDS; second < now; second++) ms += this.#buckets.get(second) ?? 0;
    return Math.round((ms / (GC_WINDOW_SECONDS * 1000)) * 100);
  }

  stop(): void {
    this.#observer.disconnect();
  }
}

/** Why this process is saturated by its own garbage collection, or undefined. */
export function gcSaturation(app: FastifyInstance): string | undefined {
  const limit = app.deps.config.readiness.maxGcPercent;
  if (limit === 0) return undefined;
  const percent = app.gcPressure.percent();
  if (percent <= limit) return undefined;
  const heap = getHeapStatistics();
  const mb = (bytes: number) => Math.round(bytes / 1024 ** 2);
  return `the process spent ${percent}% of the last ${GC_WINDOW_SECONDS} s collecting garbage (heap ${mb(heap.used_heap_size)} of ${mb(heap.heap_size_limit)} MB)`;
}

/** Whether this process's database work is moving; /readyz reports not ready while it is not. */
export function queueHealth(app: FastifyInstance): { ready: boolean; reading: QueueReading } {
  const reading = app.coalescers.reading();
  return { ready: !reading.stuck && !reading.saturated, reading };
}

export const loadShedding = fp(
  async (app: FastifyInstance) => {
    const config = app.deps.config.loadShedding;
    app.decorate(
      'coalescers',
      new CoalescerGroup({ maxWaiting: config.queueMaxWaiting, maxWaitMs: config.queueMaxWaitMs }),
    );
    const gcPressure = new GcPressure();
    app.decorate('gcPressure', gcPressure);
    app.addHook('onClose', async () => gcPressure.stop());

    // Overload arriving as new connections waits in the kernel's accept queue, where no request-level
    // limit sees it: the 200s' p99 was 33 s (SYN retries) and not one 503 (issue #28, fault 12).
    // Bounding the connections bounds the work in the process, so each turn of the event loop stays
    // short and the accept queue drains; a connection beyond the bound is closed as it is accepted
    // (Node closes the handle before any JavaScript object is made for it: the cheapest refusal),
    // and the client learns at once. Counted in mrs_http_connections_refused_total.
    if (config.maxConnections > 0) {
      app.server.maxConnections = config.maxConnections;
      let refused = 0;
      let loggedAt = Number.NEGATIVE_INFINITY;
      app.server.on('drop', () => {
        refused += 1;
        const now = performance.now();
        if (now - loggedAt < 1000) return;
        loggedAt = now;
        app.log.warn(
          { maxConnections: config.maxConnections, refusedSoFar: refused },
          'connection refused: too many connections',
        );
      });
      app.decorate('connectionsRefused', () => refused);
    } else {
      app.decorate('connectionsRefused', () => 0);
    }

    // Whatever refused with 503 (load, a full queue, a database away) or 429: the client learns
    // when to come back. A limit that knows its own window has set the header already.
    app.addHook('onSend', async (_request, reply) => {
      const status = reply.statusCode;
      if ((status === 503 || status === 429) && !reply.hasHeader('retry-after')) {
        reply.header('retry-after', String(config.retryAfterSeconds));
      }
    });

    // Start-up's own work (loading modules, compiling route schemas, the data folder) blocks the event
    // loop before the server answers, and the first samples after it would report that as load and
    // refuse the first requests. The event-loop delay counts once two samples have passed since ready.
    let readyAt = Number.POSITIVE_INFINITY;
    app.addHook('onReady', async () => {
      readyAt = performance.now();
    });
    await app.register(underPressure, {
      sampleInterval: SAMPLE_INTERVAL_MS,
      maxEventLoopDelay: config.maxEventLoopDelayMs,
      maxHeapUsedBytes: config.maxHeapUsedBytes,
      maxRssBytes: config.maxRssBytes,
      pressureHandler: async (request, reply, type, value) => {
        // Liveness must answer under load, or an orchestrator would restart a busy process.
        if (request.routeOptions.url === '/healthz') return;
        if (type === 'eventLoopDelay' && performance.now() - readyAt < 2 * SAMPLE_INTERVAL_MS) return;
        reply.header('retry-after', String(config.retryAfterSeconds));
        // Logged by the error handler, at most once a second (logRefusal), with what was over its limit.
        throw serviceOverloaded(`${type} ${Math.round(value ?? 0)}`);
      },
    });
  },
  { name: 'load-shedding' },
);
