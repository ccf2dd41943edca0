// Load shedding (docs/security.md, "Load shedding and queues"): under overload (event-loop delay,
// memory) requests are refused with 503 at once; the batching queues are bounded (CoalescerGroup);
// and every 503 or 429 tells the client when to retry.
import fp from 'fastify-plugin';
import underPressure from '@fastify/under-pressure';
import type { FastifyInstance } from 'fastify';
import { serviceOverloaded } from '../error-factories.ts';
import { CoalescerGroup } from '../db/coalescer.ts';
import type { QueueReading } from '../db/coalescer.ts';

/** How often under-pressure samples the event loop (its default, set here because the grace uses it). */
const SAMPLE_INTERVAL_MS = 1000;

declare module 'fastify' {
  interface FastifyInstance {
    /** The batching queues of this server: their shared bounds and their reading (for /readyz). */
    coalescers: CoalescerGroup;
  }
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
        request.log.warn({ type, value }, 'shedding load');
        reply.header('retry-after', String(config.retryAfterSeconds));
        throw serviceOverloaded();
      },
    });
  },
  { name: 'load-shedding' },
);
