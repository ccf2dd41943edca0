// GET /v1/me/balances: my balances per asset: the ledger's and what was paid on a chain.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../../http/schemas.ts';
import { paidBalancesOf } from '../prizes.ts';
import { Balance, tags } from './schemas.ts';

export const myBalancesRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database } = app.deps;
  app.get(
    '/balances',
    {
      schema: {
        operationId: 'listMyBalances',
        tags,
        summary: 'My balances per asset',
        response: { 200: Type.Object({ items: Type.Array(Balance) }), ...errorResponses() },
      },
    },
    async (request) => ({ items: await paidBalancesOf(database.db, request.account.id) }),
  );
};
