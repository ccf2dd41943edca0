// GET /admin/v1/promotions/{id}/rewards: the rewards set on a promotion's missions and groups.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { component, errorResponses, EXAMPLE, Id } from '../../http/schemas.ts';
import { BudgetType } from '../../budgets/routes/schemas.ts';
import { promotionRewards } from '../service.ts';

export const promotionRewardsRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database } = app.deps;
  app.get(
    '/promotions/:id/rewards',
    {
      schema: {
        operationId: 'getPromotionRewards',
        tags: ['admin: reports'],
        security: [{ adminBearer: [] }],
        summary: "The rewards set on a promotion's missions and mission groups",
        params: Type.Object({ id: Id('Promotion id') }),
        response: {
          200: Type.Object({
            items: Type.Array(
              Type.Object(
                {
                  missionId: Type.Union([Type.String(), Type.Null()]),
                  missionGroupId: Type.Union([Type.String(), Type.Null()]),
                  type: BudgetType,
                  budgetId: Type.String(),
                  budgetName: Type.String(),
                  amount: Type.Union([Type.String(), Type.Null()]),
                  assetSymbol: Type.String(),
                  decimals: Type.Integer(),
                },
                {
                  ...component('PromotionReward'),
                  description: 'A reward set on a mission (missionId) or a mission group (missionGroupId)',
                  examples: [
                    {
                      missionId: EXAMPLE.missionId,
                      missionGroupId: null,
                      type: 'FIXED',
                      budgetId: EXAMPLE.budgetId,
                      budgetName: 'Winter missions pool',
                      amount: '50',
                      assetSymbol: 'PNT',
                      decimals: 2,
                    },
                  ],
                },
              ),
            ),
          }),
          ...errorResponses('NOT_FOUND_PROMOTION'),
        },
      },
    },
    async (request) => ({ items: await promotionRewards(database.db, request.params.id) }),
  );
};
