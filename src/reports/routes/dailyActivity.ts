// GET /admin/v1/reports/daily: completions, rewards granted and payouts per UTC day (dashboard).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, Id } from '../../http/schemas.ts';
import { dailyActivity } from '../service.ts';

export const dailyActivityRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock } = app.deps;
  app.get(
    '/reports/daily',
    {
      schema: {
        tags: ['admin: reports'],
        security: [{ adminBearer: [] }],
        summary: 'Completions, rewards granted and payouts per UTC day, up to today',
        querystring: Type.Object(
          {
            days: Type.Optional(
              Type.Integer({
                minimum: 1,
                maximum: 366,
                default: 14,
                description: 'How many days, ending today',
              }),
            ),
            partnerId: Type.Optional(Id('Only this partner')),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            from: Type.String(),
            to: Type.String(),
            days: Type.Array(
              Type.Object({
                day: Type.String({ description: 'YYYY-MM-DD (UTC)' }),
                completions: Type.Integer({ description: 'Mission periods completed' }),
                rewardsGranted: Type.Integer({ description: 'Claims created with a reservation' }),
                rewardsRefused: Type.Integer({ description: 'Claims refused for an empty budget' }),
                payouts: Type.Array(
                  Type.Object({
                    assetId: Type.String(),
                    symbol: Type.String(),
                    decimals: Type.Integer(),
                    amount: Type.String({ description: 'Paid that day, whole units' }),
                    count: Type.Integer(),
                  }),
                ),
              }),
            ),
          }),
          ...errorResponses(),
        },
      },
    },
    async (request) => dailyActivity(database.db, clock, request.query.days ?? 14, request.query.partnerId),
  );
};
