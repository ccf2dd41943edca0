// POST /admin/v1/webhook-messages/{id}/resend: send a message again (same webhook-id), due now.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, Id } from '../../http/schemas.ts';
import { resendMessage } from '../service.ts';
import { MessageWithAttempts, security, tags } from './schemas.ts';

export const resendMessageRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock } = app.deps;
  app.post(
    '/webhook-messages/:id/resend',
    {
      schema: {
        operationId: 'resendWebhookMessage',
        tags,
        security,
        summary: 'Re-send a webhook message (same webhook-id) with a fresh retry schedule',
        params: Type.Object({ id: Id('Webhook message id') }),
        response: { 200: MessageWithAttempts, ...errorResponses('NOT_FOUND_WEBHOOK_MESSAGE') },
      },
    },
    async (request) => resendMessage(database.db, clock, request.params.id),
  );
};
