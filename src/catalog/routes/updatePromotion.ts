// PATCH /admin/v1/promotions/{promotionId}: change a promotion (partner, type, start and time zone
// are fixed once it has been ACTIVE, 2102).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, Id, Instant } from '../../http/schemas.ts';
import * as catalog from '../service.ts';
import { TitlesSchema } from '../titles.ts';
import {
  Promotion,
  PromotionParams,
  PromotionStatus,
  PromotionType,
  ptags,
  security,
  Timezone,
  Title,
} from './schemas.ts';

export const updatePromotionRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock } = app.deps;
  const db = database.db;
  app.patch(
    '/promotions/:promotionId',
    {
      schema: {
        operationId: 'updatePromotion',
        tags: ptags,
        security,
        summary:
          'Change a promotion; partner, type, start and time zone are fixed once it has been ACTIVE (2102)',
        params: PromotionParams,
        body: Type.Object(
          {
            partnerId: Type.Optional(Id('Partner id')),
            type: Type.Optional(PromotionType),
            title: Type.Optional(Title),
            titles: Type.Optional(TitlesSchema),
            timezone: Type.Optional(Timezone),
            startAt: Type.Optional(Instant),
            endAt: Type.Optional(Type.Union([Instant, Type.Null()])),
            status: Type.Optional(PromotionStatus),
          },
          {
            additionalProperties: false,
            minProperties: 1,
            examples: [{ status: 'ACTIVE' }, { endAt: '2027-02-01T00:00:00.000+09:00' }],
          },
        ),
        response: {
          200: Promotion,
          ...errorResponses('INVALID_TIMEZONE', 'NOT_FOUND_PROMOTION', 'IMMUTABLE_PROMOTION_FIELD'),
        },
      },
    },
    async (request) => catalog.updatePromotion(db, clock, request.params.promotionId, request.body),
  );
};
