// POST /admin/v1/partners/{partnerId}/api-keys: Issue an API key; the key is shown only in this answer.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../../http/schemas.ts';
import * as partners from '../service.ts';
import { NewApiKey, PartnerParams, security, tags } from './schemas.ts';

export const createApiKeyRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock } = app.deps;
  app.post(
    '/partners/:partnerId/api-keys',
    {
      config: { idempotency: 'refused' },
      schema: {
        operationId: 'createApiKey',
        tags,
        security,
        summary: 'Issue an API key; the key is shown only in this answer',
        params: PartnerParams,
        body: Type.Optional(
          Type.Object(
            { name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })) },
            { additionalProperties: false, examples: [{ name: 'game server' }] },
          ),
        ),
        response: {
          201: NewApiKey,
          ...errorResponses('NOT_FOUND_PARTNER'),
        },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(
          await partners.createApiKey(
            database.db,
            clock,
            request.params.partnerId,
            request.body?.name,
            app.deps.config.serviceEnvironment,
          ),
        ),
  );
};
