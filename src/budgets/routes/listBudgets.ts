// GET /admin/v1/budgets: budgets, a page at a time.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, ListQuery } from '../../http/schemas.ts';
import { listBudgets } from '../service.ts';
import { Budget, security, tags } from './schemas.ts';

export const listBudgetsRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database } = app.deps;
  app.get(
    '/budgets',
    {
      schema: {
        operationId: 'listBudgets',
        tags,
        security,
        summary: 'List budgets',
        querystring: ListQuery,
        response: { 200: Type.Object({ items: Type.Array(Budget) }), ...errorResponses() },
      },
    },
    async (request) => ({
      items: await listBudgets(database.db, request.query.limit ?? 100, request.query.offset ?? 0),
    }),
  );
};
