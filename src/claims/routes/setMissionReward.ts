// PUT /admin/v1/missions/{id}/reward: set a mission's reward.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../../http/schemas.ts';
import { getMission } from '../../catalog/service.ts';
import { setRule } from '../rules.ts';
import { IdParam, Rule, RuleBody, security, tags } from './schemas.ts';

export const setMissionRewardRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock } = app.deps;
  app.put(
    '/missions/:id/reward',
    {
      schema: {
        operationId: 'setMissionReward',
        tags,
        security,
        summary: "Set a mission's reward",
        params: IdParam('Mission id'),
        body: RuleBody,
        response: {
          200: Rule,
          ...errorResponses(
            'INVALID_AMOUNT',
            'BUDGET_TYPE_MISMATCH',
            'NOT_FOUND_MISSION',
            'NOT_FOUND_REWARD_BUDGET',
            'NOT_SET_REWARD_ASSET_DECIMALS',
          ),
        },
      },
    },
    async (request) => {
      await getMission(database.db, request.params.id);
      return setRule(database.db, clock, { missionId: request.params.id }, request.body);
    },
  );
};
