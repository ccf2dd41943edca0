// GET /admin/v1/partners: List partners.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, ListQuery } from '../../http/schemas.ts';
import * as partners from '../service.ts';
import { Partner, security, tags } from './schemas.ts';

export const listPartnersRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database } = app.deps;
  app.get(
    '/partners',
    {
      schema: {
        operationId: 'listPartners',
        tags,
        security,
        summary: 'List partners',
        querystring: ListQuery,
        response: { 200: Type.Object({ items: Type.Array(Partner) }), ...errorResponses() },
      },
    },
    async (request) => ({
      items: await partners.listPartners(database.db, request.query.limit ?? 100, request.query.offset ?? 0),
    }),
  );
};
