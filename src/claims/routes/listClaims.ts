// GET /admin/v1/claims: claims by status, partner user, promotion, budget or account, newest first.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, Id, Paging } from '../../http/schemas.ts';
import { listClaims } from '../service.ts';
import { Claim, ClaimStatus, security, tags } from './schemas.ts';
import type { WithChainTransactions } from './schemas.ts';

export const listClaimsRoute =
  (withChainTransactions: WithChainTransactions): FastifyPluginAsyncTypebox =>
  async (app) => {
    const { database } = app.deps;
    app.get(
      '/claims',
      {
        schema: {
          operationId: 'listClaims',
          tags,
          security,
          summary: 'List claims, newest first',
          querystring: Type.Object(
            {
              status: Type.Optional(ClaimStatus),
              partnerId: Type.Optional(Id('Partner id')),
              partnerUid: Type.Optional(Type.String({ maxLength: 256 })),
              promotionId: Type.Optional(Id('Promotion id')),
              budgetId: Type.Optional(Id('Budget id')),
              accountId: Type.Optional(Id('Account id')),
              ...Paging,
            },
            { additionalProperties: false },
          ),
          response: { 200: Type.Object({ items: Type.Array(Claim) }), ...errorResponses() },
        },
      },
      async (request) => {
        const { limit, offset, ...filter } = request.query;
        const claims = await listClaims(database.db, filter, limit ?? 100, offset ?? 0);
        return { items: await withChainTransactions(database.db, claims) };
      },
    );
  };
