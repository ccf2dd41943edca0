// PUT /admin/v1/mission-groups/{id}/reward: set a mission group's reward (paid when the whole group is done).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../../http/schemas.ts';
import { getMissionGroup } from '../../catalog/service.ts';
import { setRule } from '../rules.ts';
import { IdParam, Rule, RuleBody, security, tags } from './schemas.ts';

export const setGroupRewardRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock } = app.deps;
  app.put(
    '/mission-groups/:id/reward',
    {
      schema: {
        operationId: 'setGroupReward',
        tags,
        security,
        summary: "Set a mission group's reward (paid when the whole group is completed)",
        params: IdParam('Mission group id'),
        body: RuleBody,
        response: {
          200: Rule,
          ...errorResponses(
            'INVALID_AMOUNT',
            'BUDGET_TYPE_MISMATCH',
            'NOT_FOUND_MISSION_GROUP',
            'NOT_FOUND_REWARD_BUDGET',
            'NOT_SET_REWARD_ASSET_DECIMALS',
          ),
        },
      },
    },
    async (request) => {
      await getMissionGroup(database.db, request.params.id);
      return setRule(database.db, clock, { groupId: request.params.id }, request.body);
    },
  );
};
