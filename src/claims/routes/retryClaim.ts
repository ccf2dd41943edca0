// POST /admin/v1/claims/{id}/retry: request the payout of a FAILED claim again.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, sendEmpty } from '../../http/schemas.ts';
import { moveClaim } from '../service.ts';
import { IdParam, security, tags } from './schemas.ts';

export const retryClaimRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock } = app.deps;
  app.post(
    '/claims/:id/retry',
    {
      schema: {
        operationId: 'retryClaim',
        tags,
        security,
        summary: 'Request the payout of a FAILED claim again',
        params: IdParam('Claim id'),
        response: { 204: Type.Null(), ...errorResponses('NOT_FOUND_CLAIM', 'ILLEGAL_CLAIM_TRANSITION') },
      },
    },
    async (request, reply) => {
      await moveClaim(database.db, clock, request.params.id, 'REQUESTED', 'operator retry');
      return sendEmpty(reply, 204);
    },
  );
};
