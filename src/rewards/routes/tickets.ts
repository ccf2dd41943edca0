// Operator API: lucky-draw tickets by TicketFilter. NOT_RECEIVED is about one partner user.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { appError } from '../../errors.ts';
import { errorResponses, Id, PartnerUid } from '../../http/schemas.ts';
import { listTickets } from '../tickets.ts';
import { page, Paging, security, tags, Ticket, TicketFilter } from './schemas.ts';

export const ticketRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock } = app.deps;
  const db = database.db;

  app.get(
    '/tickets',
    {
      schema: {
        tags: tags.tickets,
        security,
        summary: 'List tickets: RECEIVED, DRAWN, or NOT_RECEIVED (needs partnerId and partnerUid)',
        querystring: Type.Object(
          {
            filter: Type.Optional(TicketFilter),
            partnerId: Type.Optional(Id('Partner id')),
            partnerUid: Type.Optional(PartnerUid),
            missionId: Type.Optional(Id('Mission id')),
            budgetId: Type.Optional(Id('Budget id')),
            drawId: Type.Optional(Id('Draw id')),
            won: Type.Optional(Type.Boolean()),
            ...Paging,
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ items: Type.Array(Ticket) }), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const q = request.query;
      if (q.partnerUid !== undefined && q.partnerId === undefined) {
        throw appError('VALIDATION_FAILED', 'partnerUid needs partnerId: user ids are the partner\'s own', { field: 'querystring.partnerId' });
      }
      if (q.filter === 'NOT_RECEIVED' && q.partnerUid === undefined) {
        throw appError('VALIDATION_FAILED', 'NOT_RECEIVED lists the missions one user has no ticket for: give partnerId and partnerUid', {
          field: 'querystring.partnerUid',
        });
      }
      const users = q.partnerId !== undefined && q.partnerUid !== undefined ? [{ partnerId: q.partnerId, partnerUid: q.partnerUid }] : undefined;
      return {
        items: await listTickets(db, clock, {
          ...(q.filter !== undefined && { filter: q.filter }),
          ...(users !== undefined && { users }),
          ...(q.partnerId !== undefined && { partnerId: q.partnerId }),
          ...(q.missionId !== undefined && { missionId: q.missionId }),
          ...(q.budgetId !== undefined && { budgetId: q.budgetId }),
          ...(q.drawId !== undefined && { drawId: q.drawId }),
          ...(q.won !== undefined && { won: q.won }),
          ...page(q),
        }),
      };
    },
  );
};
