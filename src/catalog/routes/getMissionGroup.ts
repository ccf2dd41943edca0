// GET /admin/v1/mission-groups/{groupId}: Get a mission group.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../../http/schemas.ts';
import * as catalog from '../service.ts';
import { GroupParams, gtags, MissionGroup, security } from './schemas.ts';

export const getMissionGroupRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database } = app.deps;
  const db = database.db;
  app.get(
    '/mission-groups/:groupId',
    {
      schema: {
        operationId: 'getMissionGroup',
        tags: gtags,
        security,
        summary: 'Get a mission group',
        params: GroupParams,
        response: { 200: MissionGroup, ...errorResponses('NOT_FOUND_MISSION_GROUP') },
      },
    },
    async (request) => catalog.getMissionGroup(db, request.params.groupId),
  );
};
