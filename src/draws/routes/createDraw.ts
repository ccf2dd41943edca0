// POST /admin/v1/draws: create a lucky draw on a LUCKY_DRAW budget; its commitment is public at once.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, EXAMPLE, Id, Instant } from '../../http/schemas.ts';
import { createDraw } from '../service.ts';
import { Draw, security, tags } from './schemas.ts';

export const createDrawRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock } = app.deps;
  app.post(
    '/draws',
    {
      schema: {
        tags,
        security,
        summary: 'Create a lucky draw on a LUCKY_DRAW budget; its commitment is public at once',
        body: Type.Object(
          {
            budgetId: Id('Budget id'),
            title: Type.String({ minLength: 1, maxLength: 200 }),
            prizeAmount: Type.String({ minLength: 1, maxLength: 120, description: 'Whole units per winner' }),
            winnersCount: Type.Integer({ minimum: 1, maximum: 100000 }),
            scheduledAt: Instant,
          },
          {
            additionalProperties: false,
            examples: [
              {
                budgetId: EXAMPLE.budgetId,
                title: 'Weekly draw',
                prizeAmount: '1000',
                winnersCount: 3,
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
          ),
        },
      },
    },
    async (request, reply) => reply.code(201).send(await createDraw(database.db, clock, request.body)),
  );
};
