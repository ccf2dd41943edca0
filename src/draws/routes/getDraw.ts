// GET /admin/v1/draws/{id}: one lucky draw.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../../http/schemas.ts';
import { getDraw } from '../service.ts';
import { Draw, params, security, tags } from './schemas.ts';

export const getDrawRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database } = app.deps;
  app.get(
    '/draws/:id',
    {
      schema: {
        operationId: 'getDraw',
        tags,
        security,
        summary: 'A draw',
        params,
        response: { 200: Draw, ...errorResponses('NOT_FOUND_DRAW') },
      },
    },
    async (request) => getDraw(database.db, request.params.id),
  );
};
