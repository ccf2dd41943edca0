// GET /admin/v1/accounts/{id}/balances: a platform account's balances, from the ledger (operators).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, Id } from '../../http/schemas.ts';
import { ledgerBalancesOf } from '../prizes.ts';
import { Balance } from './schemas.ts';

export const accountBalancesRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database } = app.deps;
  app.get(
    '/accounts/:id/balances',
    {
      schema: {
        operationId: 'getAccountBalances',
        tags: ['admin: rewards'],
        security: [{ adminBearer: [] }],
        summary: "A platform account's balances, from the ledger",
        params: Type.Object({ id: Id('Account id') }),
        response: { 200: Type.Object({ items: Type.Array(Balance) }), ...errorResponses() },
      },
    },
    async (request) => ({ items: await ledgerBalancesOf(database.db, request.params.id) }),
  );
};
