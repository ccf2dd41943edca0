// GET /admin/v1/webhook-endpoints: endpoints (of one partner, or all), never their secrets.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, Id } from '../../http/schemas.ts';
import { listEndpoints } from '../service.ts';
import { Endpoint, security, tags } from './schemas.ts';

export const listEndpointsRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database } = app.deps;
  app.get(
    '/webhook-endpoints',
    {
      schema: {
        operationId: 'listWebhookEndpoints',
        tags,
        security,
        summary: 'List webhook endpoints (never their secrets)',
        querystring: Type.Object(
          {
            partnerId: Type.Optional(Id('Only this partner')),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
            offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ items: Type.Array(Endpoint) }), ...errorResponses() },
      },
    },
    async (request) => ({
      items: await listEndpoints(
        database.db,
        request.query.partnerId,
        request.query.limit ?? 100,
        request.query.offset ?? 0,
      ),
    }),
  );
};
