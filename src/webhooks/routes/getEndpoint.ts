// GET /admin/v1/webhook-endpoints/{id}: one endpoint, never its secret.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, Id } from '../../http/schemas.ts';
import { getEndpoint } from '../service.ts';
import { Endpoint, security, tags } from './schemas.ts';

export const getEndpointRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database } = app.deps;
  app.get(
    '/webhook-endpoints/:id',
    {
      schema: {
        operationId: 'getWebhookEndpoint',
        tags,
        security,
        summary: 'Get a webhook endpoint (never its secret)',
        params: Type.Object({ id: Id('Webhook endpoint id') }),
        response: { 200: Endpoint, ...errorResponses('NOT_FOUND_WEBHOOK_ENDPOINT') },
      },
    },
    async (request) => getEndpoint(database.db, request.params.id),
  );
};
