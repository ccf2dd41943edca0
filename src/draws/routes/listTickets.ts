// GET /admin/v1/tickets: lucky-draw tickets by TicketFilter (NOT_RECEIVED needs partnerId and partnerUid).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, Id, Paging } from '../../http/schemas.ts';
import { ticketsOfFilter } from '../tickets.ts';
import type { TicketsNotReceived } from '../tickets.ts';
import { security, tags, Ticket, TicketStatus } from './schemas.ts';

export const listTicketsRoute =
  (ticketsNotReceived: TicketsNotReceived): FastifyPluginAsyncTypebox =>
  async (app) => {
    const { database, clock } = app.deps;
    app.get(
      '/tickets',
      {
        schema: {
          operationId: 'listTickets',
          tags,
          security,
          summary: 'Lucky-draw tickets by TicketFilter (NOT_RECEIVED needs partnerId and partnerUid)',
          querystring: Type.Object(
            {
              filter: Type.Optional(TicketStatus),
              partnerId: Type.Optional(Id('Partner id')),
              partnerUid: Type.Optional(Type.String({ maxLength: 256 })),
              ...Paging,
            },
            { additionalProperties: false },
          ),
          response: { 200: Type.Object({ items: Type.Array(Ticket) }), ...errorResponses() },
        },
      },
      async (request) => ({
        items: await ticketsOfFilter(database.db, clock.now(), request.query, ticketsNotReceived),
      }),
    );
  };
