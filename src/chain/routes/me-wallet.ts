// /v1/me/wallet: the signed-in user's wallet: a SIWE challenge to sign, binding it, and the current one.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { component, errorResponses, EXAMPLE } from '../../http/schemas.ts';
import { bindWallet, currentWallet, issueChallenge, siweSiteOf } from '../user-wallets.ts';

const tags = ['user: wallet'];
const Address = Type.String({
  pattern: '^0x[0-9a-fA-F]{40}$',
  description: 'An EVM address',
  examples: ['0x8ba1f109551bD432803012645Ac136ddd64DBA72'],
});
/** An example EIP-4361 (Sign-In with Ethereum) message, as the challenge gives it. */
const SIWE_MESSAGE =
  'localhost:8080 wants you to sign in with your Ethereum account:\n' +
  '0x8ba1f109551bD432803012645Ac136ddd64DBA72\n\nBind this wallet to your rewards account.\n\n' +
  'URI: http://localhost:8080\nVersion: 1\nChain ID: 11155111\nNonce: 7Qm2xK9vLc4tNw1y\n' +
  'Issued At: 2026-11-24T09:00:00.000Z\nExpiration Time: 2026-11-24T09:10:00.000Z';
const Wallet = Type.Object(
  { address: Type.String(), chainId: Type.Integer(), boundAt: Type.String() },
  {
    ...component('UserWallet'),
    description: "The signed-in user's wallet that chain rewards are paid to",
    examples: [{ address: EXAMPLE.wallet, chainId: 11155111, boundAt: EXAMPLE.later }],
  },
);

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
          200: Type.Object(
            { message: Type.String(), nonce: Type.String(), expiresAt: Type.String() },
            {
              ...component('WalletChallenge'),
              examples: [
                { message: SIWE_MESSAGE, nonce: '7Qm2xK9vLc4tNw1y', expiresAt: '2026-11-24T09:10:00.000Z' },
              ],
            },
          ),
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
