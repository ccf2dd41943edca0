// Routes that need no credentials: health, readiness and the OpenAPI document.
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { Type } from 'typebox';
import { AppError } from '../errors.ts';
import { errorResponses } from './schemas.ts';

export async function publicRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    '/healthz',
    {
      schema: {
        tags: ['operations'],
        summary: 'The process is up',
        response: { 200: Type.Object({ status: Type.Literal('ok') }) },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        tags: ['operations'],
        summary: 'The database answers',
        response: { 200: Type.Object({ status: Type.Literal('ready') }), ...errorResponses(503) },
      },
    },
    async (request, reply) => {
      try {
        await sql`SELECT 1`.execute(request.server.deps.database.db);
        return { status: 'ready' as const };
      } catch (err) {
        request.log.warn({ err }, 'readiness check failed');
        return reply.code(503).send(new AppError('SERVICE_UNAVAILABLE', 'the database does not answer').toBody());
      }
    },
  );

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
