// GET /admin/v1/draws: lucky draws, a page at a time.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, ListQuery } from '../../http/schemas.ts';
import { listDraws } from '../service.ts';
import { Draw, security, tags } from './schemas.ts';

export const listDrawsRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database } = app.deps;
  app.get(
    '/draws',
    {
      schema: {
        operationId: 'listDraws',
        tags,
        security,
        summary: 'List draws',
        querystring: ListQuery,
        response: { 200: Type.Object({ items: Type.Array(Draw) }), ...errorResponses() },
      },
    },
    async (request) => ({
      items: await listDraws(database.db, request.query.limit ?? 100, request.query.offset ?? 0),
    }),
  );
};
