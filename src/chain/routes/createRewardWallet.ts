// POST /admin/v1/budgets/{id}/reward-wallet: create or import a budget's reward wallet.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, Id } from '../../http/schemas.ts';
import { resolveWalletKek } from '../signer.ts';
import { createRewardWallet } from '../service.ts';
import { security, tags, Wallet } from './schemas.ts';

export const createRewardWalletRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock, config } = app.deps;
  const db = database.db;
  let kek: Buffer | undefined;
  const walletKek = () => (kek ??= resolveWalletKek(config, (message) => app.log.warn(message)));
  app.post(
    '/budgets/:id/reward-wallet',
    {
      config: { idempotency: 'keyed' },
      schema: {
        operationId: 'createRewardWallet',
        tags,
        security,
        summary:
          "Create the budget's reward wallet with a new key, or import one (the key is never shown again)",
        params: Type.Object({ id: Id('Budget id') }),
        body: Type.Object(
          {
            privateKey: Type.Optional(
              Type.String({
                minLength: 1,
                maxLength: 200,
                description: '0x and 64 hex digits; omit to have the service create the key',
              }),
            ),
          },
          { additionalProperties: false, examples: [{}] },
        ),
        response: {
          201: Wallet,
          ...errorResponses(
            'INVALID_PRIVATE_KEY',
            'NOT_FOUND_REWARD_BUDGET',
            'NOT_A_CHAIN_BUDGET',
            'REWARD_WALLET_EXISTS',
            'CHAIN_RPC_UNAVAILABLE',
          ),
        },
      },
    },
    async (request, reply) =>
      reply.code(201).send(
        await createRewardWallet(db, clock, walletKek(), {
          budgetId: request.params.id,
          ...(request.body.privateKey !== undefined && { privateKey: request.body.privateKey }),
        }),
      ),
  );
};
