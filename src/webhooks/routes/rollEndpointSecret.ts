// POST /admin/v1/webhook-endpoints/{id}/roll-secret: a new secret, shown once; the old one keeps
// signing (a second signature) for a grace period so the partner can switch over.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, Id } from '../../http/schemas.ts';
import { rollEndpointSecret } from '../service.ts';
import { EndpointWithSecret, security, tags } from './schemas.ts';

export const rollEndpointSecretRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock } = app.deps;
  app.post(
    '/webhook-endpoints/:id/roll-secret',
    {
      config: { idempotency: 'refused' },
      schema: {
        operationId: 'rollWebhookSecret',
        tags,
        security,
        summary:
          "Roll an endpoint's signing secret; the new one is shown only in this answer, the old one signs for 24 h more",
        params: Type.Object({ id: Id('Webhook endpoint id') }),
        response: { 200: EndpointWithSecret, ...errorResponses('NOT_FOUND_WEBHOOK_ENDPOINT') },
      },
    },
    async (request) => rollEndpointSecret(database.db, clock, request.params.id),
  );
};
