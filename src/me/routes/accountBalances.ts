// GET /admin/v1/accounts/{id}/balances: a platform account's balances, from the ledger (operators).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, Id } from '../../http/schemas.ts';
import { balancesOf } from '../../payout/ledger.ts';
import { Balance } from './schemas.ts';

export const accountBalancesRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database } = app.deps;
  app.get(
    '/accounts/:id/balances',
    {
      schema: {
        tags: ['admin: rewards'],
        security: [{ adminBearer: [] }],
        summary: "A platform account's balances, from the ledger",
        params: Type.Object({ id: Id('Account id') }),
        response: { 200: Type.Object({ items: Type.Array(Balance) }), ...errorResponses() },
      },
    },
    async (request) => ({ items: await balancesOf(database.db, request.params.id) }),
  );
};
