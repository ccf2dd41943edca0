// GET /admin/v1/mission-groups/{groupId}/missions: List a mission group's missions.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../../http/schemas.ts';
import * as catalog from '../service.ts';
import { GroupParams, Mission, mtags, security } from './schemas.ts';

export const listMissionsRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database } = app.deps;
  const db = database.db;
  app.get(
    '/mission-groups/:groupId/missions',
    {
      schema: {
        operationId: 'listMissions',
        tags: mtags,
        security,
        summary: "List a mission group's missions",
        params: GroupParams,
        response: {
          200: Type.Object({ items: Type.Array(Mission) }),
          ...errorResponses('NOT_FOUND_MISSION_GROUP'),
        },
      },
    },
    async (request) => ({ items: await catalog.listMissions(db, request.params.groupId) }),
  );
};
