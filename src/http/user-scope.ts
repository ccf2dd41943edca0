// The end-user scope (/v1/me): the session cookie from the login names a live server-side session,
// and writes must come from our own pages (cookies travel with cross-site forms too).
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import { userUnauthorized } from '../error-factories.ts';
import { SESSION_COOKIE } from './session.ts';
import { refuseCrossSiteWrite } from './cross-site.ts';

export interface UserScopeOptions {
  /** The account of a live session, or undefined (sessions/service.ts answers it). */
  accountOfSession(sessionId: string | undefined): Promise<string | undefined>;
  routes: FastifyPluginAsync[];
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in platform account; set on every route of the user scope. */
    account: { id: string };
  }
}

async function requireUser(request: FastifyRequest, options: UserScopeOptions): Promise<void> {
  const accountId = await options.accountOfSession(request.cookies[SESSION_COOKIE]);
  if (accountId === undefined) throw userUnauthorized();
  request.account = { id: accountId };
}

export async function userScope(app: FastifyInstance, options: UserScopeOptions): Promise<void> {
  app.decorateRequest('account', null as unknown as { id: string });
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, scope: 'user' };
  });
  // Where a write came from is checked first: a cross-site form learns nothing about the session.
  app.addHook('onRequest', refuseCrossSiteWrite);
  app.addHook('onRequest', (request) => requireUser(request, options));
  for (const routes of options.routes) await app.register(routes);
}
