// The accept gate (issue #28, fault 12): overload arriving as new connections waits in the kernel's
// accept queue and in the process, where no request-level limit sees it. The gate bounds the
// connections the process admits by how late its event loop runs: while a turn of the loop takes
// longer than the target, the bound shrinks towards what is open now (no new connection until some
// close; each one beyond is closed as it is accepted, so its client learns at once); while the loop
// keeps time, the bound grows back to LOAD_SHED_MAX_CONNECTIONS. Only connections are refused: the
// requests of connections already open are served as before. A pure rule, applied by load-shedding.ts
// to `server.maxConnections` on every tick of a short timer (startAcceptGate).
import type { Server } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';

export interface AcceptGateOptions {
  /** The bound when the loop keeps time (LOAD_SHED_MAX_CONNECTIONS); 0 = no bound. */
  maxConnections: number;
  /** The loop's lateness (ms) beyond which the bound shrinks (LOAD_SHED_ACCEPT_LAG_MS); 0 = no gate. */
  lagLimitMs: number;
}

/** What the bound shrinks to (the share of the connections open) on each late tick. */
export const SHRINK = 0.75;
/** What the bound grows by on each tick on time: a tenth of itself, plus one. */
const grow = (bound: number) => bound + Math.floor(bound / 10) + 1;
/** Without a configured bound, the gate's own bound is lifted once it has grown past this. */
const UNBOUNDED_FROM = 65_536;

/**
 * The next bound on connections, from the current one, the loop's lateness over the last tick and
 * the connections open now. Never 0 (Node reads 0 as "no bound") unless there is no bound at all.
 */
export function nextAcceptBound(
  options: AcceptGateOptions,
  current: number,
  lagMs: number,
  open: number,
): number {
  if (options.lagLimitMs <= 0) return options.maxConnections;
  const ceiling = options.maxConnections > 0 ? options.maxConnections : UNBOUNDED_FROM;
  const bounded = current > 0 ? current : ceiling;
  if (lagMs > options.lagLimitMs) return Math.max(1, Math.floor(Math.min(bounded, open) * SHRINK));
  const grown = grow(bounded);
  return grown >= ceiling ? options.maxConnections : grown;
}

/** How often the gate reads the event loop's lateness. */
const TICK_MS = 25;
/** How many ticks in a row must run late before the gate shrinks the bound. */
const WINDOW = 3;

/** Sets the server's bound on connections; 0 = none (Node's own reading of 0 differs by version). */
export function applyBound(server: Server, bound: number): void {
  server.maxConnections = bound > 0 ? bound : Number.POSITIVE_INFINITY;
}

/** Runs the gate on `server` until the returned function is called. */
export function startAcceptGate(
  server: Server,
  options: AcceptGateOptions,
  log: FastifyBaseLogger,
): () => void {
  let bound = options.maxConnections;
  let last = performance.now();
  // The lateness of the last few ticks: the gate reads their least, so a lone late turn (a
  // collection, the process descheduled a moment) shrinks nothing; overload is late every turn.
  const lateness = new Array<number>(WINDOW).fill(0);
  let turn = 0;
  const tick = setInterval(() => {
    const now = performance.now();
    lateness[turn++ % WINDOW] = now - last - TICK_MS;
    last = now;
    const lagMs = Math.min(...lateness);
    // The connections open now: the server counts them itself (getConnections would ask asynchronously).
    const open = (server as unknown as { _connections: number })._connections;
    const next = nextAcceptBound(options, bound, lagMs, open);
    if (next === bound) return;
    if (next < bound && bound === options.maxConnections)
      log.warn(
        { lagMs: Math.round(lagMs), open, bound: next },
        'accept gate closing: the event loop runs late, new connections are refused until it keeps time',
      );
    if (next === options.maxConnections) log.info({ bound: next }, 'accept gate open again');
    bound = next;
    applyBound(server, bound);
  }, TICK_MS);
  tick.unref();
  return () => {
    clearInterval(tick);
    applyBound(server, options.maxConnections);
  };
}
