// GET /admin/v1/promotions/{promotionId}/mission-groups: List a promotion's mission groups.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../../http/schemas.ts';
import * as catalog from '../service.ts';
import { gtags, MissionGroup, PromotionParams, security } from './schemas.ts';

export const listMissionGroupsRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database } = app.deps;
  const db = database.db;
  app.get(
    '/promotions/:promotionId/mission-groups',
    {
      schema: {
        operationId: 'listMissionGroups',
        tags: gtags,
        security,
        summary: "List a promotion's mission groups",
        params: PromotionParams,
        response: {
          200: Type.Object({ items: Type.Array(MissionGroup) }),
          ...errorResponses('NOT_FOUND_PROMOTION'),
        },
      },
    },
    async (request) => ({ items: await catalog.listMissionGroups(db, request.params.promotionId) }),
  );
};
