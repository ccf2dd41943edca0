// The linking routes that register together, one file per operation: the browser side of the login
// (public, under /v1) and the operator's view of a partner user's mapping (admin scope). The partner
// routes (checkLink, connect), findUsers and the user's /v1/me are registered by the composition root.
import type { FastifyPluginAsync } from 'fastify';
import { startExpiredLoginPurge } from '../expiry-purge.ts';
import type { PurgeOptions } from '../expiry-purge.ts';
import { loginRedirectRoute } from './loginRedirect.ts';
import { loginCallbackRoute } from './loginCallback.ts';
import { liffPageRoute } from './liffPage.ts';
import { liffLoginRoute } from './liffLogin.ts';
import { startSessionLoginRoute } from './startSessionLogin.ts';
import { logoutRoute } from './logout.ts';
import { getUserMappingRoute } from './getUserMapping.ts';
import { unlinkUserRoute } from './unlinkUser.ts';

/**
 * The login journey's routes: the spec's login redirect, our callback, the LIFF entry page and its
 * token post, and the mission page's sign-in and sign-out. `walletChallenges` purges expired wallet
 * challenges with the login's own rows.
 */
export const loginRoutes =
  (walletChallenges?: PurgeOptions['walletChallenges']): FastifyPluginAsync =>
  async (app) => {
    const { database, clock } = app.deps;
    // Expired login states, mapping tokens and sessions are purged by every process on a timer;
    // the timer ends with the app.
    let purge: { stop(): Promise<void> } | undefined;
    app.addHook('onReady', async () => {
      purge = startExpiredLoginPurge(database.db, clock, { log: app.log, walletChallenges });
    });
    app.addHook('onClose', async () => purge?.stop());
    const routes = [
      loginRedirectRoute,
      loginCallbackRoute,
      liffPageRoute,
      liffLoginRoute,
      startSessionLoginRoute,
      logoutRoute,
    ] as FastifyPluginAsync[];
    for (const route of routes) await app.register(route);
  };

/** The operator's view of a partner user's mapping: read it, or unlink. */
export const linkingAdminRoutes: FastifyPluginAsync = async (app) => {
  for (const route of [getUserMappingRoute, unlinkUserRoute] as FastifyPluginAsync[])
    await app.register(route);
};
