// The operations port (METRICS_PORT on METRICS_HOST, loopback by default): /metrics, /healthz and
// /readyz only, for a scraper or an orchestrator that should not reach the public port. The service
// and the payout worker (`npm run worker`) each serve their own. Every answer has the error body.
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.ts';
import { internalError, serviceNotReady, routeNotFound, unreadableRequest } from '../error-factories.ts';
import { metricsHandler } from './http-metrics.ts';
import type { ServiceMetrics } from './registry.ts';

export interface OperationsServerOptions {
  metrics: ServiceMetrics;
  /** When set, /metrics answers only this bearer token here too. */
  token: string | undefined;
  port: number;
  host: string;
  /** Readiness of the process: undefined when ready, else the reason. */
  notReady(): Promise<string | undefined>;
}

export async function startOperationsServer(options: OperationsServerOptions): Promise<FastifyInstance> {
  const app = Fastify({ logger: false });
  app.setNotFoundHandler((request, reply) => {
    const error = routeNotFound(request.method, request.url);
    return reply.code(error.status).send(error.toBody());
  });
  app.setErrorHandler((err: { statusCode?: number }, _request, reply) => {
    const error =
      err instanceof AppError
        ? err
        : (err.statusCode ?? 500) < 500
          ? unreadableRequest({ cause: err })
          : internalError({ cause: err });
    return reply.code(error.status).send(error.toBody());
  });
  app.get('/metrics', metricsHandler(options.metrics, options.token));
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const reason = await options.notReady();
    if (reason === undefined) return { status: 'ready' };
    const error = serviceNotReady(reason);
    return reply.code(error.status).header('retry-after', '1').send(error.toBody());
  });
  await app.listen({ port: options.port, host: options.host });
  return app;
}

/** Readiness of an API process on its operations port: the answer of its own /readyz. */
export function readinessOf(app: FastifyInstance): () => Promise<string | undefined> {
  return async () => {
    const answer = await app.inject({ method: 'GET', url: '/readyz' });
    if (answer.statusCode === 200) return undefined;
    const body = answer.json<{ message?: string }>();
    return (body.message ?? 'not ready').replace(/^not ready: /, '');
  };
}
