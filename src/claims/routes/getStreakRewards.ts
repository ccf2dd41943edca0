// GET /admin/v1/promotions/{id}/streak-rewards: a DAILY_CHECK promotion's streak rewards.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../../http/schemas.ts';
import { listStreakRewards } from '../rules.ts';
import { IdParam, security, StreakRewards, tags } from './schemas.ts';

export const getStreakRewardsRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database } = app.deps;
  app.get(
    '/promotions/:id/streak-rewards',
    {
      schema: {
        operationId: 'getStreakRewards',
        tags,
        security,
        summary: "A DAILY_CHECK promotion's streak rewards",
        params: IdParam('Promotion id'),
        response: { 200: StreakRewards, ...errorResponses('NOT_FOUND_PROMOTION') },
      },
    },
    async (request) => ({ items: await listStreakRewards(database.db, request.params.id) }),
  );
};
