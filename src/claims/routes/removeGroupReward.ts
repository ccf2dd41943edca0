// DELETE /admin/v1/mission-groups/{id}/reward: remove a mission group's reward.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, sendEmpty } from '../../http/schemas.ts';
import { getMissionGroup } from '../../catalog/service.ts';
import { removeRule } from '../rules.ts';
import { IdParam, security, tags } from './schemas.ts';

export const removeGroupRewardRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database } = app.deps;
  app.delete(
    '/mission-groups/:id/reward',
    {
      schema: {
        operationId: 'removeGroupReward',
        tags,
        security,
        summary: "Remove a group's reward",
        params: IdParam('Mission group id'),
        response: { 204: Type.Null(), ...errorResponses('NOT_FOUND_MISSION_GROUP', 'NOT_FOUND_REWARD_RULE') },
      },
    },
    async (request, reply) => {
      await getMissionGroup(database.db, request.params.id);
      await removeRule(database.db, { groupId: request.params.id });
      return sendEmpty(reply, 204);
    },
  );
};
