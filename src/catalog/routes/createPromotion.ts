// POST /admin/v1/promotions: Create a promotion (INACTIVE unless status says otherwise).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, EXAMPLE, Id, Instant } from '../../http/schemas.ts';
import * as catalog from '../service.ts';
import { TitlesSchema } from '../titles.ts';
import { Promotion, PromotionStatus, PromotionType, ptags, security, Timezone, Title } from './schemas.ts';

export const createPromotionRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock } = app.deps;
  const db = database.db;
  app.post(
    '/promotions',
    {
      config: { idempotency: 'keyed' },
      schema: {
        operationId: 'createPromotion',
        tags: ptags,
        security,
        summary: 'Create a promotion (INACTIVE unless status says otherwise)',
        body: Type.Object(
          {
            partnerId: Id('Partner id'),
            type: PromotionType,
            title: Title,
            titles: Type.Optional(TitlesSchema),
            timezone: Timezone,
            startAt: Instant,
            endAt: Type.Optional(Type.Union([Instant, Type.Null()])),
            status: Type.Optional(PromotionStatus),
          },
          {
            additionalProperties: false,
            examples: [
              {
                partnerId: EXAMPLE.partnerId,
                type: 'COMPOSITE',
                title: 'Winter missions',
                titles: { ko: '겨울 미션' },
                timezone: 'Asia/Seoul',
                startAt: '2026-12-01T00:00:00.000+09:00',
                endAt: '2027-01-01T00:00:00.000+09:00',
              },
            ],
          },
        ),
        response: { 201: Promotion, ...errorResponses('NOT_FOUND_PARTNER', 'INVALID_TIMEZONE') },
      },
    },
    async (request, reply) => reply.code(201).send(await catalog.createPromotion(db, clock, request.body)),
  );
};
