// DELETE /admin/v1/chain-networks/{id}: remove a network nothing uses (owner only).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, Id, sendEmpty } from '../../http/schemas.ts';
import { deleteNetwork } from '../service.ts';
import { security, tags } from './schemas.ts';

export const deleteChainNetworkRoute: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.deps.database.db;
  app.delete(
    '/chain-networks/:id',
    {
      config: { minRole: 'OWNER' },
      schema: {
        operationId: 'deleteChainNetwork',
        tags,
        security,
        summary: 'Remove a network nothing uses (no asset, no wallet); disable one in use instead',
        params: Type.Object({ id: Id('Network id') }),
        response: {
          204: Type.Null(),
          ...errorResponses('NOT_FOUND_CHAIN_NETWORK', 'CHAIN_NETWORK_IN_USE'),
        },
      },
    },
    async (request, reply) => {
      await deleteNetwork(db, request.params.id);
      return sendEmpty(reply, 204);
    },
  );
};
