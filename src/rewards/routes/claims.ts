// Operator API: claims with filters, one claim with its history, and the operator's moves.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, Id, PartnerUid } from '../../http/schemas.ts';
import { claimHistory, getClaim, listClaims, moveClaim } from '../claims.ts';
import { Claim, ClaimSource, ClaimStatus, IdParams, Nullable, page, Paging, security, tags } from './schemas.ts';

const Params = IdParams('claimId', 'Claim id');
const HistoryItem = Type.Object({ from: Nullable(ClaimStatus), to: ClaimStatus, reason: Nullable(Type.String()), at: Type.String() });

export const claimRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock } = app.deps;
  const db = database.db;
  const t = tags.claims;

  app.get(
    '/claims',
    {
      schema: {
        tags: t,
        security,
        summary: 'List claims, newest first, filtered by status, partner, user, promotion, budget, account or source',
        querystring: Type.Object(
          {
            status: Type.Optional(ClaimStatus),
            partnerId: Type.Optional(Id('Partner id')),
            partnerUid: Type.Optional(PartnerUid),
            promotionId: Type.Optional(Id('Promotion id')),
            budgetId: Type.Optional(Id('Budget id')),
            accountId: Type.Optional(Id('Platform account id: claims of every partner user linked to it')),
            source: Type.Optional(ClaimSource),
            ...Paging,
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ items: Type.Array(Claim) }), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const { limit, offset, ...filter } = request.query;
      return { items: await listClaims(db, filter, page({ limit, offset })) };
    },
  );

  app.get(
    '/claims/:claimId',
    { schema: { tags: t, security, summary: 'Get a claim', params: Params, response: { 200: Claim, ...errorResponses(401, 404) } } },
    async (request) => getClaim(db, request.params.claimId),
  );

  app.get(
    '/claims/:claimId/history',
    {
      schema: {
        tags: t,
        security,
        summary: "A claim's status changes, oldest first",
        params: Params,
        response: { 200: Type.Object({ items: Type.Array(HistoryItem) }), ...errorResponses(401, 404) },
      },
    },
    async (request) => ({ items: await claimHistory(db, request.params.claimId) }),
  );

  app.post(
    '/claims/:claimId/reject',
    {
      schema: {
        tags: t,
        security,
        summary: 'Reject a RESERVED claim; its amount returns to the budget (3502 in any other state)',
        params: Params,
        body: Type.Object({ reason: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false }),
        response: { 200: Claim, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => moveClaim(db, clock, request.params.claimId, 'REJECTED', `operator: ${request.body.reason}`),
  );

  app.post(
    '/claims/:claimId/retry',
    {
      schema: {
        tags: t,
        security,
        summary: 'Request the payout of a FAILED claim again, with a fresh set of attempts (3502 in any other state)',
        params: Params,
        response: { 200: Claim, ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request) => moveClaim(db, clock, request.params.claimId, 'REQUESTED', 'operator retry'),
  );
};
