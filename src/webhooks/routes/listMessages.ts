// GET /admin/v1/webhook-messages: the outbox, newest first, filtered by partner, endpoint, status or event.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, Id } from '../../http/schemas.ts';
import { listMessages } from '../service.ts';
import { EventType, Message, MessageStatus, security, tags } from './schemas.ts';

export const listMessagesRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database } = app.deps;
  app.get(
    '/webhook-messages',
    {
      schema: {
        operationId: 'listWebhookMessages',
        tags,
        security,
        summary: 'List webhook messages, newest first',
        querystring: Type.Object(
          {
            partnerId: Type.Optional(Id('Only this partner')),
            endpointId: Type.Optional(Id('Only this endpoint')),
            status: Type.Optional(MessageStatus),
            eventType: Type.Optional(EventType),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
            offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ items: Type.Array(Message) }), ...errorResponses() },
      },
    },
    async (request) => {
      const { limit, offset, ...filter } = request.query;
      const stuck = (partnerId: string, err: unknown) =>
        request.log.error(
          { err, partnerId },
          'webhook outbox rows could not become messages: listed without them, kept in the outbox',
        );
      return { items: await listMessages(database.db, filter, limit ?? 100, offset ?? 0, stuck) };
    },
  );
};
