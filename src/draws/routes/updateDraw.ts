// PATCH /admin/v1/draws/{id}: change a draw's title or per-language titles (nothing that takes part
// in the draw can change: prize, winners, close, schedule and seed are fixed at creation).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../../http/schemas.ts';
import { TitlesSchema } from '../../catalog/titles.ts';
import { updateDraw } from '../service.ts';
import { Draw, params, security, tags } from './schemas.ts';

export const updateDrawRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database } = app.deps;
  app.patch(
    '/draws/:id',
    {
      schema: {
        operationId: 'updateDraw',
        tags,
        security,
        summary: "Change a draw's title or titles per language (a PATCH with titles replaces them all)",
        params,
        body: Type.Object(
          {
            title: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
            titles: Type.Optional(TitlesSchema),
          },
          {
            additionalProperties: false,
            minProperties: 1,
            examples: [{ titles: { ko: '주간 추첨', th: 'จับรางวัลประจำสัปดาห์' } }],
          },
        ),
        response: { 200: Draw, ...errorResponses('NOT_FOUND_DRAW') },
      },
    },
    async (request) => updateDraw(database.db, request.params.id, request.body),
  );
};
