// PUT /admin/v1/budgets/{id}/caps: set a budget's caps per account and per partner per day.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../../http/schemas.ts';
import { setBudgetCaps } from '../caps.ts';
import { Caps, Decimal, IdParam, security, tags } from './schemas.ts';

export const setBudgetCapsRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock } = app.deps;
  app.put(
    '/budgets/:id/caps',
    {
      schema: {
        operationId: 'setBudgetCaps',
        tags,
        security,
        summary:
          "Set a budget's caps per account and per partner per day " +
          '(a completion past a cap gets a REJECTED claim, CAP_REACHED)',
        params: IdParam('Budget id'),
        body: Type.Object(
          {
            perAccountPerDay: Type.Union([Decimal('Whole units'), Type.Null()]),
            perPartnerPerDay: Type.Union([Decimal('Whole units'), Type.Null()]),
          },
          {
            additionalProperties: false,
            examples: [{ perAccountPerDay: '100', perPartnerPerDay: null }],
          },
        ),
        response: {
          200: Caps,
          ...errorResponses('INVALID_AMOUNT', 'NOT_FOUND_REWARD_BUDGET', 'NOT_SET_REWARD_ASSET_DECIMALS'),
        },
      },
    },
    async (request) => setBudgetCaps(database.db, clock, request.params.id, request.body),
  );
};
