// GET /admin/v1/budgets/{id}: a budget with its total, remaining, reserved and paid amounts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../../http/schemas.ts';
import { getBudget } from '../service.ts';
import { Budget, IdParam, security, tags } from './schemas.ts';

export const getBudgetRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database } = app.deps;
  app.get(
    '/budgets/:id',
    {
      schema: {
        operationId: 'getBudget',
        tags,
        security,
        summary: 'A budget: total, remaining, reserved, paid',
        params: IdParam('Budget id'),
        response: { 200: Budget, ...errorResponses('NOT_FOUND_REWARD_BUDGET') },
      },
    },
    async (request) => getBudget(database.db, request.params.id),
  );
};
