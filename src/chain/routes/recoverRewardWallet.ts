// POST /admin/v1/reward-wallets/{id}/recover: resend the payouts a deep reorg lost (owner only).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { component, errorResponses, EXAMPLE, Id } from '../../http/schemas.ts';
import { recoverRewardWallet } from '../service.ts';
import { security, tags } from './schemas.ts';

export const recoverRewardWalletRoute: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.deps.database.db;
  app.post(
    '/reward-wallets/:id/recover',
    {
      config: { minRole: 'OWNER' },
      schema: {
        operationId: 'recoverRewardWallet',
        tags,
        security,
        summary:
          'Recover a wallet halted by a reorg deeper than the confirmations: the lost CONFIRMED payouts are sent again as the same signed transactions (same nonces: never paid twice)',
        params: Type.Object({ id: Id('Reward wallet id') }),
        response: {
          200: Type.Object(
            {
              walletId: Type.String(),
              chainNonce: Type.Integer(),
              resent: Type.Array(
                Type.Object({ payoutId: Type.String(), claimId: Type.String(), nonce: Type.Integer() }),
              ),
            },
            {
              ...component('RewardWalletRecovery'),
              examples: [{ walletId: EXAMPLE.walletId, chainNonce: 12, resent: [] }],
            },
          ),
          ...errorResponses('NOT_FOUND_REWARD_WALLET', 'REWARD_WALLET_RUNNING', 'CHAIN_RPC_UNAVAILABLE'),
        },
      },
    },
    async (request) => recoverRewardWallet(db, request.params.id),
  );
};
