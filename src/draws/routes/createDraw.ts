// POST /admin/v1/draws: create a lucky draw on a LUCKY_DRAW budget; its commitment is public at once
// and its ticket set closes at closesAt (not in the past, at or before scheduledAt).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, EXAMPLE, Id, Instant } from '../../http/schemas.ts';
import { TitlesSchema } from '../../catalog/titles.ts';
import { createDraw } from '../service.ts';
import { Draw, security, tags } from './schemas.ts';

export const createDrawRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock } = app.deps;
  app.post(
    '/draws',
    {
      config: { idempotency: 'keyed' },
      schema: {
        operationId: 'createDraw',
        tags,
        security,
        summary: 'Create a lucky draw on a LUCKY_DRAW budget; its commitment is public at once',
        body: Type.Object(
          {
            budgetId: Id('Budget id'),
            title: Type.String({
              minLength: 1,
              maxLength: 200,
              description: 'The default title, and the fallback',
            }),
            titles: Type.Optional(TitlesSchema),
            prizeAmount: Type.String({ minLength: 1, maxLength: 120, description: 'Whole units per winner' }),
            winnersCount: Type.Integer({ minimum: 1, maximum: 100000 }),
            scheduledAt: {
              ...Instant,
              description: 'When the draw runs (by itself, or by an operator from then on)',
            },
            closesAt: Type.Optional({
              ...Instant,
              description:
                'When the ticket set closes (tickets received by then take part); not in the past, at or before scheduledAt. Default: scheduledAt',
            }),
          },
          {
            additionalProperties: false,
            examples: [
              {
                budgetId: EXAMPLE.budgetId,
                title: 'Weekly draw',
                titles: { ko: '주간 추첨', ja: '週間抽選' },
                prizeAmount: '1000',
                winnersCount: 3,
                closesAt: '2026-11-30T11:00:00.000Z',
                scheduledAt: '2026-11-30T12:00:00.000Z',
              },
            ],
          },
        ),
        response: {
          201: Draw,
          ...errorResponses(
            'INVALID_AMOUNT',
            'BUDGET_TYPE_MISMATCH',
            'NOT_FOUND_REWARD_BUDGET',
            'NOT_SET_REWARD_ASSET_DECIMALS',
            'DRAW_CLOSES_IN_PAST',
            'DRAW_RUNS_BEFORE_CLOSE',
          ),
        },
      },
    },
    async (request, reply) => reply.code(201).send(await createDraw(database.db, clock, request.body)),
  );
};
