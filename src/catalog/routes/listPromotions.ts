// GET /admin/v1/promotions: List promotions.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, Id, ListQuery } from '../../http/schemas.ts';
import * as catalog from '../service.ts';
import { Promotion, PromotionStatus, ptags, security } from './schemas.ts';

export const listPromotionsRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database } = app.deps;
  const db = database.db;
  app.get(
    '/promotions',
    {
      schema: {
        operationId: 'listPromotions',
        tags: ptags,
        security,
        summary: 'List promotions',
        querystring: Type.Object(
          {
            ...ListQuery.properties,
            partnerId: Type.Optional(Id('Partner id')),
            status: Type.Optional(PromotionStatus),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ items: Type.Array(Promotion) }), ...errorResponses() },
      },
    },
    async (request) => ({
      items: await catalog.listPromotions(db, {
        ...(request.query.partnerId !== undefined && { partnerId: request.query.partnerId }),
        ...(request.query.status !== undefined && { status: request.query.status }),
        limit: request.query.limit ?? 100,
        offset: request.query.offset ?? 0,
      }),
    }),
  );
};
