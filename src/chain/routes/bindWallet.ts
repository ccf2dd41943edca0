// POST /v1/me/wallet: bind (or rebind) the wallet that signed the challenge.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../../http/schemas.ts';
import { bindWallet, siweSiteOf } from '../user-wallets.ts';
import { SIWE_MESSAGE, tags, Wallet } from './user-wallet-schemas.ts';

export const bindWalletRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock, config } = app.deps;
  const site = siweSiteOf(config.publicBaseUrl);

  app.post(
    '/wallet',
    {
      schema: {
        operationId: 'bindWallet',
        tags,
        summary: 'Bind (or rebind) the wallet that signed the challenge',
        body: Type.Object(
          {
            message: Type.String({ minLength: 1, maxLength: 4000 }),
            signature: Type.String({ pattern: '^0x[0-9a-fA-F]{2,2000}$' }),
          },
          {
            additionalProperties: false,
            examples: [
              {
                message: SIWE_MESSAGE,
                signature:
                  '0x4c6f1b2a9d8e7f60514233a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4' +
                  '5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c1b',
              },
            ],
          },
        ),
        response: {
          200: Wallet,
          ...errorResponses(
            'SIWE_CHALLENGE_INVALID',
            'SIWE_SIGNATURE_INVALID',
            'NOT_FOUND_CHAIN_NETWORK',
            'CHAIN_RPC_UNAVAILABLE',
            'PAYOUT_ADDRESS_TAKEN',
          ),
        },
      },
    },
    async (request) =>
      bindWallet(database.db, clock, site, request.account.id, request.body, {
        oneAccountPerAddress: config.payoutAddressOneAccount,
      }),
  );
};
