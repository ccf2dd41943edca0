// POST /admin/v1/draws/{id}/run: run a draw now (once).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../../http/schemas.ts';
import { runDraw } from '../service.ts';
import { Draw, params, security, tags } from './schemas.ts';

export const runDrawRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock } = app.deps;
  app.post(
    '/draws/:id/run',
    {
      schema: {
        tags,
        security,
        summary: 'Run a draw now (once)',
        params,
        response: { 200: Draw, ...errorResponses('NOT_FOUND_DRAW', 'DRAW_ALREADY_DRAWN') },
      },
    },
    async (request) => runDraw(database.db, clock, request.params.id),
  );
};
