// GET /admin/v1/reports/daily: completions, rewards granted and payouts per UTC day (dashboard).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { component, errorResponses, EXAMPLE, Id } from '../../http/schemas.ts';
import { dailyActivity } from '../service.ts';

export const dailyActivityRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock } = app.deps;
  app.get(
    '/reports/daily',
    {
      schema: {
        operationId: 'getDailyActivity',
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
          200: Type.Object(
            {
              from: Type.String({ description: 'The first day, YYYY-MM-DD (UTC)' }),
              to: Type.String({ description: 'The last day, YYYY-MM-DD (UTC)' }),
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
            },
            {
              ...component('DailyActivity'),
              examples: [
                {
                  from: '2026-11-23',
                  to: '2026-11-24',
                  days: [
                    { day: '2026-11-23', completions: 0, rewardsGranted: 0, rewardsRefused: 0, payouts: [] },
                    {
                      day: '2026-11-24',
                      completions: 42,
                      rewardsGranted: 40,
                      rewardsRefused: 2,
                      payouts: [
                        { assetId: EXAMPLE.assetId, symbol: 'PNT', decimals: 2, amount: '2000', count: 40 },
                      ],
                    },
                  ],
                },
              ],
            },
          ),
          ...errorResponses(),
        },
      },
    },
    async (request) => dailyActivity(database.db, clock, request.query.days ?? 14, request.query.partnerId),
  );
};
