// POST /admin/v1/promotions/{promotionId}/mission-groups: Create a mission group in a promotion.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../../http/schemas.ts';
import * as catalog from '../service.ts';
import { TitlesSchema } from '../titles.ts';
import { gtags, MissionGroup, PromotionParams, security, Title } from './schemas.ts';

export const createMissionGroupRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock } = app.deps;
  const db = database.db;
  app.post(
    '/promotions/:promotionId/mission-groups',
    {
      config: { idempotency: 'keyed' },
      schema: {
        operationId: 'createMissionGroup',
        tags: gtags,
        security,
        summary: 'Create a mission group in a promotion',
        params: PromotionParams,
        body: Type.Object(
          { title: Title, titles: Type.Optional(TitlesSchema) },
          { additionalProperties: false, examples: [{ title: 'Every day', titles: { ko: '매일' } }] },
        ),
        response: { 201: MissionGroup, ...errorResponses('NOT_FOUND_PROMOTION') },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(await catalog.createMissionGroup(db, clock, request.params.promotionId, request.body)),
  );
};
