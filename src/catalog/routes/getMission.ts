// GET /admin/v1/missions/{missionId}: Get a mission.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../../http/schemas.ts';
import * as catalog from '../service.ts';
import { Mission, MissionParams, mtags, security } from './schemas.ts';

export const getMissionRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database } = app.deps;
  const db = database.db;
  app.get(
    '/missions/:missionId',
    {
      schema: {
        operationId: 'getMission',
        tags: mtags,
        security,
        summary: 'Get a mission',
        params: MissionParams,
        response: { 200: Mission, ...errorResponses('NOT_FOUND_MISSION') },
      },
    },
    async (request) => catalog.getMission(db, request.params.missionId),
  );
};
