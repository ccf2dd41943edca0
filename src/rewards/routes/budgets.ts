// Operator API: budgets (FIXED or LUCKY_DRAW), their totals, top-ups and views.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, Id } from '../../http/schemas.ts';
import { MAX_STRIPES } from '../reservation.ts';
import { createBudget, getBudget, listBudgets, topUpBudget } from '../service.ts';
import { AmountOut, Decimal, IdParams, page, Paging, RewardType, security, tags } from './schemas.ts';

const Budget = Type.Object({
  id: Type.String(),
  type: RewardType,
  name: Type.String(),
  assetId: Type.String(),
  assetSymbol: Type.String(),
  decimals: Type.Integer(),
  stripes: Type.Integer({ description: 'Sub-allotments that concurrent reservations spread over' }),
  total: AmountOut('Everything put in: creation and top-ups'),
  remaining: AmountOut('Not reserved yet'),
  reserved: AmountOut('Claims RESERVED, REQUESTED or FAILED'),
  paid: AmountOut('Claims SUCCEEDED'),
  rejected: Type.Integer({ description: 'Number of REJECTED claims (e.g. the budget was empty)' }),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});
const Params = IdParams('budgetId', 'Budget id');

export const budgetRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock } = app.deps;
  const db = database.db;
  const t = tags.budgets;

  app.post(
    '/budgets',
    {
      schema: {
        tags: t,
        security,
        summary: 'Create a budget on an asset; total in whole units of the asset',
        body: Type.Object(
          {
            type: RewardType,
            assetId: Id('Reward asset id'),
            name: Type.String({ minLength: 1, maxLength: 200 }),
            total: Decimal('Whole units; at most the asset decimals after the point'),
            stripes: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_STRIPES, description: 'Sub-allotments for concurrent reservations (default 16)' })),
          },
          { additionalProperties: false },
        ),
        response: { 201: Budget, ...errorResponses(400, 401, 403, 404, 422) },
      },
    },
    async (request, reply) => reply.code(201).send(await createBudget(db, clock, request.body)),
  );

  app.get(
    '/budgets',
    {
      schema: {
        tags: t,
        security,
        summary: 'List budgets with their totals',
        querystring: Type.Object({ type: Type.Optional(RewardType), assetId: Type.Optional(Id('Reward asset id')), ...Paging }, { additionalProperties: false }),
        response: { 200: Type.Object({ items: Type.Array(Budget) }), ...errorResponses(400, 401) },
      },
    },
    async (request) => ({
      items: await listBudgets(db, {
        ...(request.query.type !== undefined && { type: request.query.type }),
        ...(request.query.assetId !== undefined && { assetId: request.query.assetId }),
        ...page(request.query),
      }),
    }),
  );

  app.get(
    '/budgets/:budgetId',
    { schema: { tags: t, security, summary: 'A budget: total, remaining, reserved, paid', params: Params, response: { 200: Budget, ...errorResponses(401, 404) } } },
    async (request) => getBudget(db, request.params.budgetId),
  );

  app.post(
    '/budgets/:budgetId/top-up',
    {
      schema: {
        tags: t,
        security,
        summary: 'Add to a budget (spread over its stripes)',
        params: Params,
        body: Type.Object({ amount: Decimal('Whole units to add') }, { additionalProperties: false }),
        response: { 200: Budget, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => topUpBudget(db, clock, request.params.budgetId, request.body.amount),
  );
};
