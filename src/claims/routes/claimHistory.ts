// GET /admin/v1/claims/{id}/history: a claim's status changes.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { component, errorResponses, EXAMPLE } from '../../http/schemas.ts';
import { claimHistory } from '../service.ts';
import { IdParam, security, tags } from './schemas.ts';

export const claimHistoryRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database } = app.deps;
  app.get(
    '/claims/:id/history',
    {
      schema: {
        operationId: 'getClaimHistory',
        tags,
        security,
        summary: "A claim's status changes",
        params: IdParam('Claim id'),
        response: {
          200: Type.Object({
            items: Type.Array(
              Type.Object(
                {
                  from: Type.Union([Type.String(), Type.Null()]),
                  to: Type.String(),
                  reason: Type.Union([Type.String(), Type.Null()]),
                  at: Type.String(),
                },
                {
                  ...component('ClaimEvent'),
                  description: "One change of a claim's status",
                  examples: [{ from: 'REQUESTED', to: 'SUCCEEDED', reason: null, at: EXAMPLE.later }],
                },
              ),
            ),
          }),
          ...errorResponses('NOT_FOUND_CLAIM'),
        },
      },
    },
    async (request) => ({ items: await claimHistory(database.db, request.params.id) }),
  );
};
