// The end-user scope (/v1/me): the platform session cookie from the login names the account.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { appError } from '../errors.ts';
import { readSessionToken, SESSION_COOKIE } from './session.ts';
import { meRoutes } from '../linking/routes/me.ts';
import { rewardsMeRoutes } from '../rewards/routes/me.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in platform account; set on every route of the user scope. */
    account: { id: string };
  }
}

async function requireUser(request: FastifyRequest): Promise<void> {
  const token = request.cookies[SESSION_COOKIE];
  const { config, clock } = request.server.deps;
  const accountId = token ? readSessionToken(token, clock.now(), config.sessionSecret) : undefined;
  if (accountId === undefined) throw appError('USER_UNAUTHORIZED', 'sign in to the reward platform first');
  request.account = { id: accountId };
}

export async function userScope(app: FastifyInstance): Promise<void> {
  app.decorateRequest('account', null as unknown as { id: string });
  app.addHook('onRequest', requireUser);
  await app.register(meRoutes);
  await app.register(rewardsMeRoutes);
}
