// POST /admin/v1/budgets: create a budget; total in whole units of the asset.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, EXAMPLE, Id } from '../../http/schemas.ts';
import { createBudget } from '../service.ts';
import { Budget, BudgetType, Decimal, security, tags } from './schemas.ts';

export const createBudgetRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock } = app.deps;
  app.post(
    '/budgets',
    {
      config: { idempotency: 'keyed' },
      schema: {
        operationId: 'createBudget',
        tags,
        security,
        summary: 'Create a budget; total in whole units of the asset',
        body: Type.Object(
          {
            type: BudgetType,
            assetId: Id('Asset id'),
            name: Type.String({ minLength: 1, maxLength: 200 }),
            total: Decimal('Whole units'),
            stripes: Type.Optional(
              Type.Integer({
                minimum: 1,
                maximum: 64,
                description: 'Sub-allotments for concurrent reservations (default 16)',
              }),
            ),
          },
          {
            additionalProperties: false,
            examples: [
              { type: 'FIXED', assetId: EXAMPLE.assetId, name: 'Winter missions pool', total: '100000' },
              { type: 'LUCKY_DRAW', assetId: EXAMPLE.assetId, name: 'Weekly draw pool', total: '5000.5' },
            ],
          },
        ),
        response: {
          201: Budget,
          ...errorResponses('INVALID_AMOUNT', 'NOT_FOUND_REWARD_ASSET', 'NOT_SET_REWARD_ASSET_DECIMALS'),
        },
      },
    },
    async (request, reply) => reply.code(201).send(await createBudget(database.db, clock, request.body)),
  );
};
