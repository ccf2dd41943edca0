// /v1/me/wallet: the signed-in user's wallet: a SIWE challenge to sign, binding it, and the current one.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../../http/schemas.ts';
import { bindWallet, currentWallet, issueChallenge, siweSiteOf } from '../user-wallets.ts';

const tags = ['user: wallet'];
const Address = Type.String({
  pattern: '^0x[0-9a-fA-F]{40}$',
  description: 'An EVM address',
  examples: ['0x8ba1f109551bD432803012645Ac136ddd64DBA72'],
});
const Wallet = Type.Object({ address: Type.String(), chainId: Type.Integer(), boundAt: Type.String() });

export const meWalletRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock, config } = app.deps;
  const site = siweSiteOf(config.publicBaseUrl);

  app.get(
    '/wallet/challenge',
    {
      schema: {
        tags,
        summary: 'A one-time Sign-In with Ethereum message for this address, to sign with the wallet',
        querystring: Type.Object(
          { address: Address, chainId: Type.Optional(Type.Integer({ minimum: 1 })) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ message: Type.String(), nonce: Type.String(), expiresAt: Type.String() }),
          ...errorResponses('NOT_FOUND_CHAIN_NETWORK'),
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

  app.post(
    '/wallet',
    {
      schema: {
        tags,
        summary: 'Bind (or rebind) the wallet that signed the challenge',
        body: Type.Object(
          {
            message: Type.String({ minLength: 1, maxLength: 4000 }),
            signature: Type.String({ pattern: '^0x[0-9a-fA-F]{2,2000}$' }),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Wallet,
          ...errorResponses('SIWE_CHALLENGE_INVALID', 'SIWE_SIGNATURE_INVALID', 'NOT_FOUND_CHAIN_NETWORK'),
        },
      },
    },
    async (request) => bindWallet(database.db, clock, site, request.account.id, request.body),
  );

  app.get(
    '/wallet',
    {
      schema: {
        tags,
        summary: 'The wallet rewards are paid to',
        response: { 200: Wallet, ...errorResponses('NOT_FOUND_USER_WALLET') },
      },
    },
    async (request) => currentWallet(database.db, request.account.id),
  );
};
