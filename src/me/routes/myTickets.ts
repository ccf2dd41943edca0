// GET /v1/me/tickets: my lucky-draw tickets by TicketFilter.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../../http/schemas.ts';
import { listTickets } from '../../draws/tickets.ts';
import { ticketsNotReceivedOf, withMissionTitlesIn } from '../missions.ts';
import { LangQuery, readerLanguage } from '../../catalog/titles.ts';
import { prizesOfTickets } from '../prizes.ts';
import { MY_PAGE_DEFAULT, MyTicket, NextCursor, PageQuery, pageOf, tags, TicketFilter } from './schemas.ts';

export const myTicketsRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock } = app.deps;
  app.get(
    '/tickets',
    {
      schema: {
        operationId: 'listMyTickets',
        tags,
        summary:
          'My lucky-draw tickets by TicketFilter; ' +
          'NOT_RECEIVED lists lucky-draw missions without a ticket this period',
        querystring: Type.Object(
          { filter: Type.Optional(TicketFilter), lang: LangQuery, ...PageQuery },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ items: Type.Array(MyTicket), nextCursor: NextCursor }),
          ...errorResponses(),
        },
      },
    },
    async (request) => {
      const { filter, cursor, limit = MY_PAGE_DEFAULT } = request.query;
      const accountId = request.account.id;
      const lang = readerLanguage(request.query.lang, request.headers['accept-language']);
      // NOT_RECEIVED lists this period's lucky-draw missions without a ticket: one page, never more.
      const page =
        filter === 'NOT_RECEIVED'
          ? { items: await ticketsNotReceivedOf(database.db, accountId, clock.now(), lang), nextCursor: null }
          : await (async () => {
              const rows = await listTickets(
                database.db,
                { accountId, status: filter, afterId: cursor },
                limit + 1,
                0,
              );
              const { items: tickets, nextCursor } = pageOf(rows, limit);
              return { items: await withMissionTitlesIn(database.db, tickets, lang), nextCursor };
            })();
      const items = page.items;
      const prizes = await prizesOfTickets(database.db, items);
      return {
        nextCursor: page.nextCursor,
        items: items.map(({ id, missionId, missionTitle, status, periodKey, drawId, won, createdAt }) => ({
          id,
          missionId,
          missionTitle,
          status,
          periodKey,
          drawId,
          won,
          createdAt,
          prize: (id !== null && prizes.get(id)) || null,
        })),
      };
    },
  );
};
