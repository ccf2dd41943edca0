// GET /v1/me/balances: my balances per asset, from the ledger.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../../http/schemas.ts';
import { balancesOf } from '../../payout/ledger.ts';
import { Balance, tags } from './schemas.ts';

export const myBalancesRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database } = app.deps;
  app.get(
    '/balances',
    {
      schema: {
        tags,
        summary: 'My balances per asset',
        response: { 200: Type.Object({ items: Type.Array(Balance) }), ...errorResponses() },
      },
    },
    async (request) => ({ items: await balancesOf(database.db, request.account.id) }),
  );
};
