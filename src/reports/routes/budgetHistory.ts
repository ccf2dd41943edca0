// GET /admin/v1/budgets/{id}/history: a budget's reservations, releases and payouts per UTC day
// with running totals, for the console's chart.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { component, errorResponses, Id } from '../../http/schemas.ts';
import { budgetHistory } from '../service.ts';

const Amount = (description: string) => Type.String({ description });

export const budgetHistoryRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database } = app.deps;
  app.get(
    '/budgets/:id/history',
    {
      schema: {
        operationId: 'getBudgetHistory',
        tags: ['admin: reports'],
        security: [{ adminBearer: [] }],
        summary: "A budget's movements per UTC day (days with movements only), with running totals",
        params: Type.Object({ id: Id('Budget id') }),
        response: {
          200: Type.Object({
            items: Type.Array(
              Type.Object(
                {
                  day: Type.String({ description: 'YYYY-MM-DD (UTC)' }),
                  reserved: Amount('Reserved by new claims that day'),
                  released: Amount('Given back by rejected claims that day'),
                  paid: Amount('Paid out that day'),
                  heldToDate: Amount('Reserved and not yet paid or released, at the end of the day'),
                  paidToDate: Amount('Paid out up to the end of the day'),
                },
                {
                  ...component('BudgetHistoryDay'),
                  examples: [
                    {
                      day: '2026-11-24',
                      reserved: '150',
                      released: '0',
                      paid: '100',
                      heldToDate: '50',
                      paidToDate: '600',
                    },
                  ],
                },
              ),
            ),
          }),
          ...errorResponses('NOT_FOUND_REWARD_BUDGET'),
        },
      },
    },
    async (request) => ({ items: (await budgetHistory(database.db, request.params.id)).items }),
  );
};
