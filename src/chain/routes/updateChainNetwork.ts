// PATCH /admin/v1/chain-networks/{id}: a network's RPC URLs, explorer, confirmations, enabled (owner only).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, Id } from '../../http/schemas.ts';
import { updateNetwork } from '../service.ts';
import { Network, security, tags } from './schemas.ts';

export const updateChainNetworkRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock, config } = app.deps;
  const db = database.db;
  const rpcRules = { allowedHosts: config.chainRpcAllowedHosts };
  app.patch(
    '/chain-networks/:id',
    {
      config: { minRole: 'OWNER' },
      schema: {
        operationId: 'updateChainNetwork',
        tags,
        security,
        summary:
          "Steer a network: its RPC URLs (tried in order; each must answer the network's chain id), explorer URL, confirmations, or disable / enable it",
        params: Type.Object({ id: Id('Network id') }),
        body: Type.Object(
          {
            rpcUrls: Type.Optional(
              Type.Array(Type.String({ pattern: '^https?://', maxLength: 500 }), {
                minItems: 1,
                maxItems: 5,
              }),
            ),
            explorerTxUrl: Type.Optional(
              Type.Union([Type.String({ pattern: '^https?://.*\\{hash\\}', maxLength: 500 }), Type.Null()]),
            ),
            confirmations: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
            enabled: Type.Optional(Type.Boolean()),
          },
          {
            additionalProperties: false,
            minProperties: 1,
            examples: [{ rpcUrls: ['https://rpc.sepolia.example', 'https://rpc2.sepolia.example'] }],
          },
        ),
        response: {
          200: Network,
          ...errorResponses(
            'NOT_FOUND_CHAIN_NETWORK',
            'CHAIN_RPC_URL_REFUSED',
            'CHAIN_ID_MISMATCH',
            'CHAIN_RPC_UNAVAILABLE',
          ),
        },
      },
    },
    async (request) => updateNetwork(db, clock, rpcRules, request.params.id, request.body),
  );
};
