// GET /admin/v1/partners/{partnerId}/api-keys: List a partner's API keys (never the keys themselves).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../../http/schemas.ts';
import * as partners from '../service.ts';
import { ApiKey, PartnerParams, security, tags } from './schemas.ts';

export const listApiKeysRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database } = app.deps;
  app.get(
    '/partners/:partnerId/api-keys',
    {
      schema: {
        operationId: 'listApiKeys',
        tags,
        security,
        summary: "List a partner's API keys (never the keys themselves)",
        params: PartnerParams,
        response: { 200: Type.Object({ items: Type.Array(ApiKey) }), ...errorResponses('NOT_FOUND_PARTNER') },
      },
    },
    async (request) => ({ items: await partners.listApiKeys(database.db, request.params.partnerId) }),
  );
};
