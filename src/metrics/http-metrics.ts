// The metrics of the HTTP server: every answer is counted by route template (never the raw URL),
// method, status and partner (bounded), and timed; /metrics is served on the main port only when
// METRICS_TOKEN is set, and answers only that bearer token (docs/operations.md, "Metrics and alerts").
import { createHash, timingSafeEqual } from 'node:crypto';
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { metricsUnauthorized } from '../error-factories.ts';
import { createServiceMetrics } from './registry.ts';
import type { ServiceMetrics } from './registry.ts';
import { databaseReadings } from './database-readings.ts';
import type { DatabaseReadings } from './database-readings.ts';
import type { PayoutProgress } from './payout-progress.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** This app's Prometheus registry and instruments (one per app, never the global registry). */
    metrics: ServiceMetrics;
    /** The scrape-time database reading (shared with /readyz's payout check). */
    databaseReadings: DatabaseReadings;
  }
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Whether the request carries `Authorization: Bearer <token>`, compared in constant time. */
export function hasBearer(request: FastifyRequest, token: string): boolean {
  const header = request.headers.authorization;
  if (typeof header !== 'string' || !header.startsWith('Bearer ')) return false;
  return timingSafeEqual(digest(header.slice('Bearer '.length)), digest(token));
}

/** The /metrics handler: the exposition text, or 401 with the error body without the right token. */
export function metricsHandler(metrics: ServiceMetrics, token: string | undefined) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (token !== undefined && !hasBearer(request, token)) {
      const error = metricsUnauthorized();
      return reply.code(error.status).header('www-authenticate', 'Bearer').send(error.toBody());
    }
    const text = await metrics.exposition();
    return reply.header('content-type', metrics.contentType).header('cache-control', 'no-store').send(text);
  };
}

function scopeOf(limitedBy: string | undefined, route: string): string {
  if (limitedBy !== undefined) return limitedBy;
  if (route === '/metrics') return 'metrics';
  if (route.startsWith('/v1/me')) return 'user';
  return 'other';
}

export const httpMetrics = fp(
  async (app: FastifyInstance, options: { payoutProgress?: PayoutProgress }) => {
    const { config, database, clock } = app.deps;
    const readings = databaseReadings(database.db, clock, {
      cacheMs: config.metrics.databaseReadingCacheMs,
      timeoutMs: config.metrics.databaseReadingTimeoutMs,
      onError: (err) => app.log.warn({ err }, 'metrics database reading failed'),
    });
    const metrics = createServiceMetrics({
      database,
      readings,
      coalescers: app.coalescers,
      connectionsRefused: () => app.connectionsRefused(),
      ...(options.payoutProgress && { payoutProgress: options.payoutProgress }),
      maxPartnerLabels: config.metrics.maxPartnerLabels,
    });
    app.decorate('metrics', metrics);
    app.decorate('databaseReadings', readings);
    app.addHook('onClose', async () => metrics.stop());

    app.addHook('onResponse', (request, reply, done) => {
      // Fastify builds routeOptions afresh on every read: read once.
      const routeOptions = request.routeOptions;
      const route = routeOptions.url ?? 'unmatched';
      const method = METHODS.has(request.method) ? request.method : 'OTHER';
      const status = reply.statusCode;
      // The partner only once its credentials were accepted (request.partner is set by the partner scope).
      const partner =
        routeOptions.config?.limitedBy === 'partner'
          ? (request as { partner?: { id: string } | null }).partner?.id
          : undefined;
      metrics.httpRequests.inc({
        route,
        method,
        status: String(status),
        partner: metrics.partners.of(partner),
      });
      metrics.httpDuration.observe({ route, method }, reply.elapsedTime / 1000);
      if (status === 401) metrics.authRefusals.inc({ scope: scopeOf(routeOptions.config?.limitedBy, route) });
      done();
    });

    const token = config.metrics.token;
    // Without a token the main port has no /metrics (404 with the error body); the operations port may.
    if (token !== undefined) {
      app.get('/metrics', { schema: { hide: true } }, metricsHandler(metrics, token));
    }
  },
  { name: 'http-metrics', dependencies: ['load-shedding'] },
);
