// GET /v1/me/tickets: my lucky-draw tickets by TicketFilter.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../../http/schemas.ts';
import { listTickets } from '../../draws/tickets.ts';
import { ticketsNotReceivedOf, withMissionTitlesIn } from '../missions.ts';
import { LangQuery, readerLanguage } from '../../catalog/titles.ts';
import { MyTicket, tags, TicketFilter } from './schemas.ts';

export const myTicketsRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock } = app.deps;
  app.get(
    '/tickets',
    {
      schema: {
        tags,
        summary:
          'My lucky-draw tickets by TicketFilter; ' +
          'NOT_RECEIVED lists lucky-draw missions without a ticket this period',
        querystring: Type.Object(
          { filter: Type.Optional(TicketFilter), lang: LangQuery },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ items: Type.Array(MyTicket) }), ...errorResponses() },
      },
    },
    async (request) => {
      const { filter } = request.query;
      const accountId = request.account.id;
      const lang = readerLanguage(request.query.lang, request.headers['accept-language']);
      const items =
        filter === 'NOT_RECEIVED'
          ? await ticketsNotReceivedOf(database.db, accountId, clock.now(), lang)
          : await withMissionTitlesIn(
              database.db,
              await listTickets(database.db, { accountId, status: filter }, 500, 0),
              lang,
            );
      return {
        items: items.map(({ id, missionId, missionTitle, status, periodKey, drawId, won, createdAt }) => ({
          id,
          missionId,
          missionTitle,
          status,
          periodKey,
          drawId,
          won,
          createdAt,
        })),
      };
    },
  );
};
