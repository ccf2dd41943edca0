// GET /admin/v1/webhook-messages/{id}: a message with each attempt (status code, error, duration).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, Id } from '../../http/schemas.ts';
import { getMessage } from '../service.ts';
import { MessageWithAttempts, security, tags } from './schemas.ts';

export const getMessageRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database } = app.deps;
  app.get(
    '/webhook-messages/:id',
    {
      schema: {
        operationId: 'getWebhookMessage',
        tags,
        security,
        summary: 'Get a webhook message with every delivery attempt',
        params: Type.Object({ id: Id('Webhook message id') }),
        response: { 200: MessageWithAttempts, ...errorResponses('NOT_FOUND_WEBHOOK_MESSAGE') },
      },
    },
    async (request) => getMessage(database.db, request.params.id),
  );
};
