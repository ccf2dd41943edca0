// POST /admin/v1/partners/{partnerId}/webhook-endpoints: register an endpoint; its secret is shown once.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, Id } from '../../http/schemas.ts';
import { createEndpoint } from '../service.ts';
import { Description, EndpointUrl, EndpointWithSecret, EventTypes, security, tags } from './schemas.ts';

export const createEndpointRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock, config } = app.deps;
  app.post(
    '/partners/:partnerId/webhook-endpoints',
    {
      config: { idempotency: 'refused' },
      schema: {
        operationId: 'createWebhookEndpoint',
        tags,
        security,
        summary: "Register a partner's webhook endpoint; the signing secret is shown only in this answer",
        params: Type.Object({ partnerId: Id('Partner id') }),
        body: Type.Object(
          {
            url: EndpointUrl,
            events: EventTypes,
            description: Type.Optional(Description),
            enabled: Type.Optional(Type.Boolean()),
          },
          {
            additionalProperties: false,
            examples: [
              {
                url: 'https://partner.example/webhooks',
                events: ['claim.succeeded', 'claim.failed'],
                description: 'claims to the game server',
              },
            ],
          },
        ),
        response: { 201: EndpointWithSecret, ...errorResponses('WEBHOOK_URL_REFUSED', 'NOT_FOUND_PARTNER') },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(
          await createEndpoint(database.db, clock, config.webhooks, request.params.partnerId, request.body),
        ),
  );
};
