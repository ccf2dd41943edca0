// GET /admin/v1/partners/{partnerId}/users/{partnerUid}/mapping: a partner user's mapping and account.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../../http/schemas.ts';
import { mappingWithAccount } from '../links.ts';
import { Mapping, params, security, tags } from './mapping-schemas.ts';

export const getUserMappingRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database } = app.deps;
  app.get(
    '/partners/:partnerId/users/:partnerUid/mapping',
    {
      schema: {
        operationId: 'getUserMapping',
        tags,
        security,
        summary: "A partner user's mapping and platform account",
        params,
        response: { 200: Mapping, ...errorResponses('NOT_FOUND_PARTNER', 'NOT_FOUND_MAPPING') },
      },
    },
    async (request) => mappingWithAccount(database.db, request.params.partnerId, request.params.partnerUid),
  );
};
