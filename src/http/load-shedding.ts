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

/** How often the event loop's utilization is read: the window a saturation is judged over. */
const UTILIZATION_WINDOW_MS = 25;

/**
 * While the loop is saturated, a new connection is refused once this many are open: a process busy
 * with a few long requests still takes a new one, a crowd is refused (measured at 3,000/s: 64% served
 * with the 200s' p99 under 0.4 s, against 50% with a bound of 1).
 */
const SATURATED_MAX_CONNECTIONS = 8;

/**
 * A crowd: at least this many new connections (accepted or refused) in the last CROWD_WINDOWS
 * windows (250 ms), 512 a second. A load balancer growing its pool of kept connections to a busy
 * process opens a few dozen at once and then reuses them: it is never refused for that (the
 * multi-process test through nginx had 300 of its flash crowd's requests answered 502 when the
 * refusal looked at the loop alone).
 */
const CROWD_ARRIVALS = 128;
const CROWD_WINDOWS = 10;

/** Windows in a row at or beyond the limit before the loop counts as saturated (a lone spike does not). */
const SATURATED_WINDOWS = 2;

/** After listening, how long the loop's utilization is not judged (start-up's own work). */
const UTILIZATION_GRACE_MS = 2000;

/**
 * Whether new connections are to be refused: the event loop was busy at least `limitPercent` of
 * the last windows (Node's event-loop utilization: the share of time spent running callbacks rather
 * than waiting for I/O) while a crowd of new connections arrives. Reports each change; off when the
 * limit is 0.
 */
export class AcceptGate {
  refusing = false;
  /** The last window's utilization, in percent. */
  percent = 0;
  /** New connections (accepted or refused) over the last CROWD_WINDOWS windows. */
  arrivals = 0;
  #arrivedThisWindow = 0;
  readonly #recent: number[] = [];
  #timer: NodeJS.Timeout | undefined;

  constructor(
    readonly limitPercent: number,
    private readonly onChange: (refusing: boolean, percent: number, arrivals: number) => void,
  ) {}

  /** A new connection reached the process (accepted, or refused at accept). */
  arrived(): void {
    this.#arrivedThisWindow += 1;
  }

  start(): void {
    if (this.limitPercent === 0 || this.#timer) return;
    let last = performance.eventLoopUtilization();
    let over = 0;
    const judgeFrom = performance.now() + UTILIZATION_GRACE_MS;
    this.#timer = setInterval(() => {
      const now = performance.eventLoopUtilization();
      this.percent = Math.round(performance.eventLoopUtilization(now, last).utilization * 100);
      last = now;
      over = this.percent >= this.limitPercent && performance.now() >= judgeFrom ? over + 1 : 0;
      this.#recent.push(this.#arrivedThisWindow);
      this.arrivals += this.#arrivedThisWindow;
      this.#arrivedThisWindow = 0;
      if (this.#recent.length > CROWD_WINDOWS) this.arrivals -= this.#recent.shift() as number;
      const refusing = over >= SATURATED_WINDOWS && this.arrivals >= CROWD_ARRIVALS;
      if (refusing === this.refusing) return;
      this.refusing = refusing;
      this.onChange(refusing, this.percent, this.arrivals);
    }, UTILIZATION_WINDOW_MS);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
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
    // Two bounds turn it into refusals at accept, where Node closes the handle before any JavaScript
    // object is made for it (the cheapest refusal, so the accept queue drains and the kernel stops
    // dropping SYNs), and the client learns at once:
    // - at most LOAD_SHED_MAX_CONNECTIONS open at once;
    // - while the event loop was busy LOAD_SHED_MAX_LOOP_UTILIZATION percent of the last windows and
    //   a crowd of new connections arrives (AcceptGate), none beyond 8 open: the ones open (a
    //   partner's or a load balancer's kept pool) are served, the crowd behind them is refused instead
    //   of waiting seconds for the process to get round to it. The loop's lateness does not tell
    //   this (measured: it stayed under 35 ms while the queue stood full).
    // Both counted in mrs_http_connections_refused_total.
    const gate = new AcceptGate(config.maxLoopUtilizationPercent, (refusing, percent, arrivals) => {
      setBound(refusing);
      app.log.warn(
        {
          loopUtilizationPercent: percent,
          limitPercent: config.maxLoopUtilizationPercent,
          newConnectionsPerSecond: Math.round((arrivals * 1000) / (CROWD_WINDOWS * UTILIZATION_WINDOW_MS)),
        },
        refusing
          ? 'refusing new connections: the event loop is saturated by a crowd of new connections'
          : 'accepting new connections again',
      );
    });
    if (config.maxLoopUtilizationPercent > 0) app.server.on('connection', () => gate.arrived());
    // Node treats 0 as no bound; while refusing, the lower of the two bounds.
    const countBound = config.maxConnections > 0 ? config.maxConnections : Number.POSITIVE_INFINITY;
    const setBound = (refusing: boolean) => {
      app.server.maxConnections = refusing ? Math.min(SATURATED_MAX_CONNECTIONS, countBound) : countBound;
    };
    setBound(false);
    let refused = 0;
    let loggedAt = Number.NEGATIVE_INFINITY;
    app.server.on('drop', () => {
      gate.arrived();
      refused += 1;
      const now = performance.now();
      if (now - loggedAt < 1000) return;
      loggedAt = now;
      if (gate.refusing) {
        app.log.warn(
          { loopUtilizationPercent: gate.percent, refusedSoFar: refused },
          'connection refused: the event loop is saturated',
        );
      } else {
        app.log.warn(
          { maxConnections: config.maxConnections, refusedSoFar: refused },
          'connection refused: too many connections',
        );
      }
    });
    app.decorate('connectionsRefused', () => refused);
    app.addHook('onListen', async () => gate.start());
    app.addHook('onClose', async () => gate.stop());

    // Whatever refused with 503 (load, a full queue, a database away) or 429: the client learns
    // when to come back. A limit that knows its own window has set the header already.
    app.addHook('onSend', (_request, reply, payload, done) => {
      const status = reply.statusCode;
      if ((status === 503 || status === 429) && !reply.hasHeader('retry-after')) {
        reply.header('retry-after', String(config.retryAfterSeconds));
      }
      done(null, payload);
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
