// POST /admin/v1/chain-networks: register an EVM network (owner only).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../../http/schemas.ts';
import { createNetwork } from '../service.ts';
import { Network, security, tags } from './schemas.ts';

export const createChainNetworkRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock, config } = app.deps;
  const db = database.db;
  const rpcRules = { allowedHosts: config.chainRpcAllowedHosts };
  app.post(
    '/chain-networks',
    {
      schema: {
        operationId: 'createChainNetwork',
        tags,
        security,
        summary: 'Register an EVM network (its RPC endpoint must answer with this chain id)',
        body: Type.Object(
          {
            name: Type.String({ minLength: 1, maxLength: 100 }),
            chainId: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
            rpcUrl: Type.String({ pattern: '^https?://', maxLength: 500 }),
            confirmations: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
            explorerTxUrl: Type.Optional(
              Type.Union([Type.String({ pattern: '^https?://.*\\{hash\\}', maxLength: 500 }), Type.Null()]),
            ),
          },
          {
            additionalProperties: false,
            examples: [
              {
                name: 'Sepolia',
                chainId: 11155111,
                rpcUrl: 'https://rpc.sepolia.example',
                confirmations: 3,
                explorerTxUrl: 'https://sepolia.etherscan.io/tx/{hash}',
              },
            ],
          },
        ),
        response: {
          201: Network,
          ...errorResponses('CHAIN_RPC_URL_REFUSED', 'CHAIN_ID_MISMATCH', 'CHAIN_RPC_UNAVAILABLE'),
        },
      },
      // Where money goes and where the service connects: the owner's decision (audited).
      config: { minRole: 'OWNER', idempotency: 'keyed' },
    },
    async (request, reply) => reply.code(201).send(await createNetwork(db, clock, request.body, rpcRules)),
  );
};
