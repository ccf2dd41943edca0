// POST /admin/v1/budgets/{id}/reward-wallet/dev-faucet: development chain coins and tokens for a wallet.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, Id } from '../../http/schemas.ts';
import { viewRewardWallet } from '../service.ts';
import { fundFromDevFaucet } from '../dev-network.ts';
import { security, tags, WalletBalances } from './schemas.ts';

export const fundDevRewardWalletRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database, config } = app.deps;
  const db = database.db;

  // Only where the development chain may run: in production this route does not exist.
  if (config.devChain)
    app.post(
      '/budgets/:id/reward-wallet/dev-faucet',
      {
        schema: {
          operationId: 'fundDevRewardWallet',
          tags,
          security,
          summary:
            "Development chain only: give the budget's reward wallet coins for gas and test tokens (default 1000 whole units)",
          params: Type.Object({ id: Id('Budget id') }),
          body: Type.Object(
            {
              amount: Type.Optional(
                Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$', maxLength: 80, description: 'Whole units' }),
              ),
            },
            { additionalProperties: false, examples: [{ amount: '1000' }] },
          ),
          response: {
            200: WalletBalances,
            ...errorResponses(
              'INVALID_AMOUNT',
              'NOT_FOUND_REWARD_WALLET',
              'NOT_A_DEV_CHAIN_WALLET',
              'CHAIN_RPC_UNAVAILABLE',
            ),
          },
        },
      },
      async (request) => {
        await fundFromDevFaucet(db, request.params.id, request.body.amount ?? '1000');
        return viewRewardWallet(db, request.params.id);
      },
    );
};
