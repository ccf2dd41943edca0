// GET /admin/v1/budgets/{id}/reward-wallet/alerts: what the console's reward wallet panel must say
// before anything else: the wallet is halted by a deep reorg (and why: recover it), or its
// development chain was reset (balances and confirmed transfers of the earlier chain are gone).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { component, errorResponses, EXAMPLE, Id } from '../../http/schemas.ts';
import { rewardWalletAlerts } from '../service.ts';

const RewardWalletAlerts = Type.Object(
  {
    walletId: Type.String(),
    halted: Type.Union(
      [
        Type.Object({
          at: Type.String({ description: 'ISO 8601' }),
          reason: Type.String(),
        }),
        Type.Null(),
      ],
      {
        description:
          'Set while a reorg deeper than the confirmations has the wallet halted: nothing is paid from it until an OWNER recovers it (POST /admin/v1/reward-wallets/{id}/recover)',
      },
    ),
    devChainResetAt: Type.Union([Type.String(), Type.Null()], {
      description:
        "When the wallet's development chain was last found reset (a new chain at each start): transfers confirmed before are gone with the earlier chain",
    }),
  },
  {
    ...component('RewardWalletAlerts'),
    description: "What needs an operator's attention on a budget's reward wallet",
    examples: [
      {
        walletId: EXAMPLE.walletId,
        halted: {
          at: EXAMPLE.instant,
          reason:
            "the chain's nonce of 0x… on Sepolia is 3 but the outbox settled nonce 4: a reorg deeper than the confirmations removed settled transfers",
        },
        devChainResetAt: null,
      },
    ],
  },
);

export const getRewardWalletAlertsRoute: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.deps.database.db;
  app.get(
    '/budgets/:id/reward-wallet/alerts',
    {
      schema: {
        operationId: 'getRewardWalletAlerts',
        tags: ['admin: chain'],
        security: [{ adminBearer: [] }],
        summary:
          "What needs an operator's attention on the budget's reward wallet: halted, or its dev chain reset",
        params: Type.Object({ id: Id('Budget id') }),
        response: {
          200: RewardWalletAlerts,
          ...errorResponses('NOT_FOUND_REWARD_WALLET'),
        },
      },
    },
    async (request) => rewardWalletAlerts(db, request.params.id),
  );
};
