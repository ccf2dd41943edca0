// POST /admin/v1/chain-assets: a reward asset paid on a chain (token contract or native coin).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, EXAMPLE, Id } from '../../http/schemas.ts';
import { createChainAsset } from '../service.ts';
import { Address, ChainAsset, security, tags } from './schemas.ts';

export const createChainAssetRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock } = app.deps;
  const db = database.db;
  app.post(
    '/chain-assets',
    {
      config: { idempotency: 'keyed' },
      schema: {
        operationId: 'createChainAsset',
        tags,
        security,
        summary:
          'Register a reward asset on a chain: a token contract (decimals read from it) or the native coin (no tokenAddress)',
        body: Type.Object(
          {
            networkId: Id('Network id'),
            symbol: Type.String({ minLength: 1, maxLength: 16 }),
            name: Type.String({ minLength: 1, maxLength: 200 }),
            tokenAddress: Type.Optional(Type.Union([Address, Type.Null()])),
          },
          {
            additionalProperties: false,
            examples: [
              {
                networkId: EXAMPLE.networkId,
                symbol: 'USDC',
                name: 'USD Coin (Sepolia)',
                tokenAddress: '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238',
              },
            ],
          },
        ),
        response: {
          201: ChainAsset,
          ...errorResponses(
            'NOT_FOUND_CHAIN_NETWORK',
            'NOT_A_TOKEN_CONTRACT',
            'UNSUPPORTED_TOKEN',
            'CHAIN_RPC_UNAVAILABLE',
          ),
        },
      },
    },
    async (request, reply) => reply.code(201).send(await createChainAsset(db, clock, request.body)),
  );
};
