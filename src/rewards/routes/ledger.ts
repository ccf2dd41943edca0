// Operator API: balances of a platform account and the ledger's totals per asset.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../../http/schemas.ts';
import { accountBalances, ledgerTotals } from '../ledger.ts';
import { AmountOut, Balance, IdParams, security, tags } from './schemas.ts';

export const ledgerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.deps.database.db;

  app.get(
    '/accounts/:accountId/balances',
    {
      schema: {
        tags: tags.ledger,
        security,
        summary: "A platform account's balances, derived from the ledger",
        params: IdParams('accountId', 'Platform account id'),
        response: { 200: Type.Object({ items: Type.Array(Balance) }), ...errorResponses(401, 404) },
      },
    },
    async (request) => ({ items: await accountBalances(db, request.params.accountId) }),
  );

  app.get(
    '/ledger/totals',
    {
      schema: {
        tags: tags.ledger,
        security,
        summary: 'Per asset: the sum of all ledger entries (always 0), the number of transfers and the amount paid',
        response: {
          200: Type.Object({
            items: Type.Array(
              Type.Object({ assetId: Type.String(), symbol: Type.String(), entrySum: AmountOut('Sum of all entries'), transfers: Type.Integer(), paid: AmountOut('Paid out') }),
            ),
          }),
          ...errorResponses(401),
        },
      },
    },
    async () => ({ items: await ledgerTotals(db) }),
  );
};
