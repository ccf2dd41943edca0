// DELETE /admin/v1/partners/{partnerId}/api-keys/{keyId}: Revoke an API key; it stops working at once.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, sendEmpty, Id } from '../../http/schemas.ts';
import * as partners from '../service.ts';
import { security, tags } from './schemas.ts';

export const revokeApiKeyRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock } = app.deps;
  app.delete(
    '/partners/:partnerId/api-keys/:keyId',
    {
      schema: {
        operationId: 'revokeApiKey',
        tags,
        security,
        summary: 'Revoke an API key; it stops working at once',
        params: Type.Object({ partnerId: Id('Partner id'), keyId: Id('API key id') }),
        response: { 204: Type.Null(), ...errorResponses('NOT_FOUND_PARTNER', 'NOT_FOUND_API_KEY') },
      },
    },
    async (request, reply) => {
      await partners.revokeApiKey(database.db, clock, request.params.partnerId, request.params.keyId);
      return sendEmpty(reply, 204);
    },
  );
};
