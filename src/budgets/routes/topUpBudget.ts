// POST /admin/v1/budgets/{id}/top-up: add whole units to a budget.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../../http/schemas.ts';
import { topUpBudget } from '../service.ts';
import { Budget, Decimal, IdParam, security, tags } from './schemas.ts';

export const topUpBudgetRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock } = app.deps;
  app.post(
    '/budgets/:id/top-up',
    {
      config: { idempotency: 'keyed' },
      schema: {
        operationId: 'topUpBudget',
        tags,
        security,
        summary: 'Add to a budget',
        params: IdParam('Budget id'),
        body: Type.Object(
          { amount: Decimal('Whole units to add') },
          { additionalProperties: false, examples: [{ amount: '2500' }] },
        ),
        response: { 200: Budget, ...errorResponses('INVALID_AMOUNT', 'NOT_FOUND_REWARD_BUDGET') },
      },
    },
    async (request) => topUpBudget(database.db, clock, request.params.id, request.body.amount),
  );
};
