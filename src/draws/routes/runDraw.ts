// POST /admin/v1/draws/{id}/run: run a draw now (once), at or after its scheduled time; a chain
// draw waits (503) for the first block mined after its close.
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
        operationId: 'runDraw',
        tags,
        security,
        summary:
          'Run a draw now (once; at or after its scheduled time, after the earlier-closing draws of its budget; a chain draw once the first block after its close is confirmed)',
        params,
        response: {
          200: Draw,
          ...errorResponses(
            'NOT_FOUND_DRAW',
            'DRAW_ALREADY_DRAWN',
            'DRAW_NOT_DUE',
            'DRAW_EARLIER_PENDING',
            'DRAW_WAITING_FOR_BLOCK',
            'DRAW_CHAIN_UNAVAILABLE',
          ),
        },
      },
    },
    async (request) => runDraw(database.db, clock, request.params.id),
  );
};
