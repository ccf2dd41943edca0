// GET /v1/me/wallet/challenge: a one-time Sign-In with Ethereum message to sign.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { component, errorResponses } from '../../http/schemas.ts';
import { issueChallenge, siweSiteOf } from '../user-wallets.ts';
import { Address, SIWE_MESSAGE, tags } from './user-wallet-schemas.ts';

export const getWalletChallengeRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock, config } = app.deps;
  const site = siweSiteOf(config.publicBaseUrl);

  app.get(
    '/wallet/challenge',
    {
      schema: {
        operationId: 'getWalletChallenge',
        tags,
        summary: 'A one-time Sign-In with Ethereum message for this address, to sign with the wallet',
        querystring: Type.Object(
          { address: Address, chainId: Type.Optional(Type.Integer({ minimum: 1 })) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object(
            { message: Type.String(), nonce: Type.String(), expiresAt: Type.String() },
            {
              ...component('WalletChallenge'),
              examples: [
                { message: SIWE_MESSAGE, nonce: '7Qm2xK9vLc4tNw1y', expiresAt: '2026-11-24T09:10:00.000Z' },
              ],
            },
          ),
          ...errorResponses('NOT_FOUND_CHAIN_NETWORK', 'WALLET_CHALLENGES_EXHAUSTED'),
        },
      },
    },
    async (request) =>
      issueChallenge(database.db, clock, site, {
        accountId: request.account.id,
        address: request.query.address,
        ...(request.query.chainId !== undefined && { chainId: request.query.chainId }),
      }),
  );
};
