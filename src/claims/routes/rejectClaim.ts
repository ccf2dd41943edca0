// POST /admin/v1/claims/{id}/reject: reject a RESERVED claim; its amount returns to the budget.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, sendEmpty } from '../../http/schemas.ts';
import { moveClaim } from '../service.ts';
import { IdParam, security, tags } from './schemas.ts';

export const rejectClaimRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock } = app.deps;
  app.post(
    '/claims/:id/reject',
    {
      schema: {
        operationId: 'rejectClaim',
        tags,
        security,
        summary: 'Reject a RESERVED claim; its amount returns to the budget',
        params: IdParam('Claim id'),
        body: Type.Object(
          { reason: Type.String({ minLength: 1, maxLength: 200, examples: ['duplicate account'] }) },
          { additionalProperties: false },
        ),
        response: { 204: Type.Null(), ...errorResponses('NOT_FOUND_CLAIM', 'ILLEGAL_CLAIM_TRANSITION') },
      },
    },
    async (request, reply) => {
      const reason = `operator: ${request.body.reason}`;
      await moveClaim(database.db, clock, request.params.id, 'REJECTED', reason);
      return sendEmpty(reply, 204);
    },
  );
};
