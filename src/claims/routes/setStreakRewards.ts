// PUT /admin/v1/promotions/{id}/streak-rewards: a DAILY_CHECK promotion's rewards per streak length.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../../http/schemas.ts';
import { setStreakRewards } from '../rules.ts';
import { IdParam, security, StreakRewards, tags } from './schemas.ts';

export const setStreakRewardsRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database } = app.deps;
  app.put(
    '/promotions/:id/streak-rewards',
    {
      schema: {
        operationId: 'setStreakRewards',
        tags,
        security,
        summary: "Set a DAILY_CHECK promotion's rewards for streak lengths (replaces them)",
        params: IdParam('Promotion id'),
        body: StreakRewards,
        response: {
          200: StreakRewards,
          ...errorResponses(
            'INVALID_AMOUNT',
            'BUDGET_TYPE_MISMATCH',
            'NOT_FOUND_PROMOTION',
            'NOT_FOUND_REWARD_BUDGET',
            'NOT_SET_REWARD_ASSET_DECIMALS',
          ),
        },
      },
    },
    async (request) => ({
      items: await setStreakRewards(database.db, request.params.id, request.body.items),
    }),
  );
};
