// GET /admin/v1/budgets/{id}/caps: a budget's caps per account and per partner per day.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../../http/schemas.ts';
import { getBudgetCaps } from '../caps.ts';
import { Caps, IdParam, security, tags } from './schemas.ts';

export const getBudgetCapsRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database } = app.deps;
  app.get(
    '/budgets/:id/caps',
    {
      schema: {
        operationId: 'getBudgetCaps',
        tags,
        security,
        summary: "A budget's caps per account and per partner per day",
        params: IdParam('Budget id'),
        response: {
          200: Caps,
          ...errorResponses('NOT_FOUND_REWARD_BUDGET', 'NOT_SET_REWARD_ASSET_DECIMALS'),
        },
      },
    },
    async (request) => getBudgetCaps(database.db, request.params.id),
  );
};
