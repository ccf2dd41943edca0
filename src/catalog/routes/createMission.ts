// POST /admin/v1/mission-groups/{groupId}/missions: Create a mission; its key is unique per partner.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, EXAMPLE, MissionKey } from '../../http/schemas.ts';
import * as catalog from '../service.ts';
import { TitlesSchema } from '../titles.ts';
import { GroupParams, Mission, mtags, Recurrence, security, Target, Title } from './schemas.ts';

export const createMissionRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock } = app.deps;
  const db = database.db;
  app.post(
    '/mission-groups/:groupId/missions',
    {
      config: { idempotency: 'keyed' },
      schema: {
        operationId: 'createMission',
        tags: mtags,
        security,
        summary: 'Create a mission; its key is unique per partner',
        params: GroupParams,
        body: Type.Object(
          {
            missionKey: MissionKey,
            title: Title,
            titles: Type.Optional(TitlesSchema),
            recurrence: Recurrence,
            target: Type.Optional(Target),
          },
          {
            additionalProperties: false,
            examples: [
              {
                missionKey: EXAMPLE.missionKey,
                title: 'Log in every day',
                titles: { ko: '매일 출석하기', ja: '毎日ログイン' },
                recurrence: 'DAILY',
              },
              { missionKey: 'play-5-rounds', title: 'Play 5 rounds', recurrence: 'WEEKLY', target: 5 },
            ],
          },
        ),
        response: { 201: Mission, ...errorResponses('NOT_FOUND_MISSION_GROUP', 'DUPLICATE_MISSION_KEY') },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await catalog.createMission(db, clock, request.params.groupId, request.body)),
  );
};
