// GET /admin/v1/chain-networks: every EVM network.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../../http/schemas.ts';
import { listNetworks } from '../service.ts';
import { Network, security, tags } from './schemas.ts';

export const listChainNetworksRoute: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.deps.database.db;
  app.get(
    '/chain-networks',
    {
      schema: {
        operationId: 'listChainNetworks',
        tags,
        security,
        summary: 'List EVM networks',
        response: { 200: Type.Object({ items: Type.Array(Network) }), ...errorResponses() },
      },
    },
    async () => ({ items: await listNetworks(db) }),
  );
};
