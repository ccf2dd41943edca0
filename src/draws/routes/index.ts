// The lucky-draw routes, one file per operation: the operator's (/admin/v1) and the public view (/v1).
import type { FastifyPluginAsync } from 'fastify';
import { createDrawRoute } from './createDraw.ts';
import { listDrawsRoute } from './listDraws.ts';
import { getDrawRoute } from './getDraw.ts';
import { runDrawRoute } from './runDraw.ts';
import { updateDrawRoute } from './updateDraw.ts';
import { listTicketsRoute } from './listTickets.ts';
import { getPublicDrawRoute } from './getPublicDraw.ts';
import type { TicketsNotReceived } from '../tickets.ts';

/**
 * Registers every operator draw and ticket operation. The tickets a user has not received come from
 * the user's missions (me/missions.ts), which the composition root passes in.
 */
export const drawAdminRoutes =
  (ticketsNotReceived: TicketsNotReceived): FastifyPluginAsync =>
  async (app) => {
    const routes = [
      createDrawRoute,
      listDrawsRoute,
      getDrawRoute,
      updateDrawRoute,
      runDrawRoute,
      listTicketsRoute(ticketsNotReceived),
    ] as FastifyPluginAsync[];
    for (const route of routes) await app.register(route);
  };

/** The public view of a draw: no credentials. */
export const drawPublicRoutes = getPublicDrawRoute as FastifyPluginAsync;
