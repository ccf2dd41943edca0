// GET /admin/v1/budgets/{id}/reward-wallet: a budget's reward wallet with its balances and what it owes.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, Id } from '../../http/schemas.ts';
import { viewRewardWallet } from '../service.ts';
import { security, tags, WalletBalances } from './schemas.ts';

export const getRewardWalletRoute: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.deps.database.db;
  app.get(
    '/budgets/:id/reward-wallet',
    {
      schema: {
        operationId: 'getRewardWallet',
        tags,
        security,
        summary:
          "The budget's reward wallet: address, balances on chain, what it owes, a warning when it cannot cover that",
        params: Type.Object({ id: Id('Budget id') }),
        response: {
          200: WalletBalances,
          ...errorResponses('NOT_FOUND_REWARD_BUDGET', 'NOT_FOUND_REWARD_WALLET'),
        },
      },
    },
    async (request) => viewRewardWallet(db, request.params.id),
  );
};
