// GET /admin/v1/promotions/{promotionId}: Get a promotion.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../../http/schemas.ts';
import * as catalog from '../service.ts';
import { Promotion, PromotionParams, ptags, security } from './schemas.ts';

export const getPromotionRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database } = app.deps;
  const db = database.db;
  app.get(
    '/promotions/:promotionId',
    {
      schema: {
        operationId: 'getPromotion',
        tags: ptags,
        security,
        summary: 'Get a promotion',
        params: PromotionParams,
        response: { 200: Promotion, ...errorResponses('NOT_FOUND_PROMOTION') },
      },
    },
    async (request) => catalog.getPromotion(db, request.params.promotionId),
  );
};
