// The signed-in user's read routes (/v1/me), one file per operation, and the operator's view of an
// account's balances (/admin/v1).
import type { FastifyPluginAsync } from 'fastify';
import { myMissionsRoute } from './myMissions.ts';
import { myClaimsRoute } from './myClaims.ts';
import { myTicketsRoute } from './myTickets.ts';
import { myBalancesRoute } from './myBalances.ts';
import { accountBalancesRoute } from './accountBalances.ts';

/** Registers every /v1/me read operation. */
export const meReadRoutes: FastifyPluginAsync = async (app) => {
  const routes = [myMissionsRoute, myClaimsRoute, myTicketsRoute, myBalancesRoute] as FastifyPluginAsync[];
  for (const route of routes) await app.register(route);
};

/** The operator's view of a platform account's balances. */
export const accountAdminRoutes = accountBalancesRoute as FastifyPluginAsync;
