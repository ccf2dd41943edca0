// GET /v1/me/missions: my missions in the active promotions of every linked partner.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../../http/schemas.ts';
import { missionsOf } from '../missions.ts';
import { LangQuery, readerLanguage } from '../../catalog/titles.ts';
import { MyMission, MyStreak, tags } from './schemas.ts';

export const myMissionsRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock } = app.deps;
  app.get(
    '/missions',
    {
      schema: {
        operationId: 'listMyMissions',
        tags,
        summary:
          'My missions in the active promotions of every linked partner, ' +
          "with this period's progress and check-in streaks",
        querystring: Type.Object({ lang: LangQuery }, { additionalProperties: false }),
        response: {
          200: Type.Object({ items: Type.Array(MyMission), streaks: Type.Array(MyStreak) }),
          ...errorResponses(),
        },
      },
    },
    async (request) =>
      missionsOf(
        database.db,
        request.account.id,
        clock.now(),
        readerLanguage(request.query.lang, request.headers['accept-language']),
      ),
  );
};
