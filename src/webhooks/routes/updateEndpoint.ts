// PATCH /admin/v1/webhook-endpoints/{id}: change the URL, events, description, or enable/disable.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, Id } from '../../http/schemas.ts';
import { updateEndpoint } from '../service.ts';
import { Description, Endpoint, EndpointUrl, EventTypes, security, tags } from './schemas.ts';

export const updateEndpointRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock, config } = app.deps;
  app.patch(
    '/webhook-endpoints/:id',
    {
      schema: {
        operationId: 'updateWebhookEndpoint',
        tags,
        security,
        summary: 'Change a webhook endpoint (URL, events, description, enabled)',
        params: Type.Object({ id: Id('Webhook endpoint id') }),
        body: Type.Object(
          {
            url: Type.Optional(EndpointUrl),
            events: Type.Optional(EventTypes),
            description: Type.Optional(Description),
            enabled: Type.Optional(Type.Boolean()),
          },
          { additionalProperties: false, minProperties: 1, examples: [{ enabled: false }] },
        ),
        response: { 200: Endpoint, ...errorResponses('WEBHOOK_URL_REFUSED', 'NOT_FOUND_WEBHOOK_ENDPOINT') },
      },
    },
    async (request) => updateEndpoint(database.db, clock, config.webhooks, request.params.id, request.body),
  );
};
