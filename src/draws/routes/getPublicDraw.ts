// GET /v1/draws/{id}: a lucky draw anyone can check, without credentials.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../../http/schemas.ts';
import { getDraw } from '../service.ts';
import { Draw, params } from './schemas.ts';

export const getPublicDrawRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/draws/:id',
    {
      schema: {
        tags: ['public'],
        summary: 'A lucky draw: commitment before, seed and winners after (no credentials)',
        params,
        response: { 200: Draw, ...errorResponses('NOT_FOUND_DRAW') },
      },
    },
    async (request) => getDraw(app.deps.database.db, request.params.id),
  );
};
