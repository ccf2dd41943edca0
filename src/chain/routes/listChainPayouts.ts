// GET /admin/v1/chain-payouts: the outbox's payouts with their transactions.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../../http/schemas.ts';
import { listChainPayouts } from '../service.ts';
import { ChainPayout, PayoutStatus, security, tags } from './schemas.ts';

export const listChainPayoutsRoute: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.deps.database.db;
  app.get(
    '/chain-payouts',
    {
      schema: {
        operationId: 'listChainPayouts',
        tags,
        security,
        summary:
          "The outbox's payouts, newest first, with their transactions (filter by status, network, budget, claim)",
        querystring: Type.Object({
          status: Type.Optional(PayoutStatus),
          networkId: Type.Optional(Type.String({ maxLength: 100 })),
          budgetId: Type.Optional(Type.String({ maxLength: 100 })),
          claimId: Type.Optional(Type.String({ maxLength: 100 })),
          cursor: Type.Optional(Type.String({ maxLength: 200 })),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
        }),
        response: {
          200: Type.Object({
            items: Type.Array(ChainPayout),
            nextCursor: Type.Union([Type.String(), Type.Null()]),
          }),
          ...errorResponses(),
        },
      },
    },
    async (request) => listChainPayouts(db, request.query),
  );
};
