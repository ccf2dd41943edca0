// GET /admin/v1/reward-wallets/reconcile: each wallet's transfers on chain against its CONFIRMED payouts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../../http/schemas.ts';
import { reconcileWallets } from '../reconcile.ts';
import { Reconciliation, security, tags } from './schemas.ts';

export const reconcileRewardWalletsRoute: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.deps.database.db;
  app.get(
    '/reward-wallets/reconcile',
    {
      schema: {
        operationId: 'reconcileRewardWallets',
        tags,
        security,
        summary: "Compare each reward wallet's transfers on chain with its CONFIRMED payouts",
        response: {
          200: Type.Object({ items: Type.Array(Reconciliation) }),
          ...errorResponses('CHAIN_RPC_UNAVAILABLE'),
        },
      },
    },
    async () => ({ items: await reconcileWallets(db) }),
  );
};
