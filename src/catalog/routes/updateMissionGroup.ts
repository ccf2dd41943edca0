// PATCH /admin/v1/mission-groups/{groupId}: Rename a mission group.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../../http/schemas.ts';
import * as catalog from '../service.ts';
import { TitlesSchema } from '../titles.ts';
import { GroupParams, gtags, MissionGroup, security, Title } from './schemas.ts';

export const updateMissionGroupRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock } = app.deps;
  const db = database.db;
  app.patch(
    '/mission-groups/:groupId',
    {
      schema: {
        operationId: 'updateMissionGroup',
        tags: gtags,
        security,
        summary: 'Rename a mission group',
        params: GroupParams,
        body: Type.Object(
          { title: Type.Optional(Title), titles: Type.Optional(TitlesSchema) },
          { additionalProperties: false, minProperties: 1, examples: [{ title: 'Every day of the week' }] },
        ),
        response: { 200: MissionGroup, ...errorResponses('NOT_FOUND_MISSION_GROUP') },
      },
    },
    async (request) => catalog.updateMissionGroup(db, clock, request.params.groupId, request.body),
  );
};
