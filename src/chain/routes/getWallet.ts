// GET /v1/me/wallet: the wallet rewards are paid to.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../../http/schemas.ts';
import { currentWallet } from '../user-wallets.ts';
import { tags, Wallet } from './user-wallet-schemas.ts';

export const getWalletRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database } = app.deps;

  app.get(
    '/wallet',
    {
      schema: {
        operationId: 'getWallet',
        tags,
        summary: 'The wallet rewards are paid to',
        response: { 200: Wallet, ...errorResponses('NOT_FOUND_USER_WALLET') },
      },
    },
    async (request) => currentWallet(database.db, request.account.id),
  );
};
