// DELETE /admin/v1/missions/{id}/reward: remove a mission's reward.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, sendEmpty } from '../../http/schemas.ts';
import { getMission } from '../../catalog/service.ts';
import { removeRule } from '../rules.ts';
import { IdParam, security, tags } from './schemas.ts';

export const removeMissionRewardRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database } = app.deps;
  app.delete(
    '/missions/:id/reward',
    {
      schema: {
        operationId: 'removeMissionReward',
        tags,
        security,
        summary: "Remove a mission's reward",
        params: IdParam('Mission id'),
        response: { 204: Type.Null(), ...errorResponses('NOT_FOUND_MISSION', 'NOT_FOUND_REWARD_RULE') },
      },
    },
    async (request, reply) => {
      await getMission(database.db, request.params.id);
      await removeRule(database.db, { missionId: request.params.id });
      return sendEmpty(reply, 204);
    },
  );
};
