// PATCH /admin/v1/missions/{missionId}: Change a mission title or target (key and recurrence are fixed).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../../http/schemas.ts';
import * as catalog from '../service.ts';
import { TitlesSchema } from '../titles.ts';
import { Mission, MissionParams, mtags, security, Target, Title } from './schemas.ts';

export const updateMissionRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock } = app.deps;
  const db = database.db;
  app.patch(
    '/missions/:missionId',
    {
      schema: {
        operationId: 'updateMission',
        tags: mtags,
        security,
        summary: 'Change a mission title or target (key and recurrence are fixed)',
        params: MissionParams,
        body: Type.Object(
          { title: Type.Optional(Title), titles: Type.Optional(TitlesSchema), target: Type.Optional(Target) },
          {
            additionalProperties: false,
            minProperties: 1,
            examples: [{ title: 'Play 10 rounds', target: 10 }],
          },
        ),
        response: { 200: Mission, ...errorResponses('NOT_FOUND_MISSION') },
      },
    },
    async (request) => catalog.updateMission(db, clock, request.params.missionId, request.body),
  );
};
