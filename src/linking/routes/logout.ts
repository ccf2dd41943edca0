// POST /v1/logout: the mission page's sign-out (ends this session on every process).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, sendEmpty } from '../../http/schemas.ts';
import { clearSessionCookie, SESSION_COOKIE } from '../../http/session.ts';
import { refuseCrossSiteWrite } from '../../http/cross-site.ts';
import { endSession } from '../../sessions/service.ts';

export const logoutRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { config, database } = app.deps;
  app.post(
    '/logout',
    {
      // Cookie-authenticated: a page of another site must not sign the user out (or in, elsewhere).
      onRequest: refuseCrossSiteWrite,
      schema: {
        operationId: 'logout',
        tags: ['user'],
        summary: 'Sign out of the mission page: ends this session on every process at once',
        description: 'To end every session of the account, POST /v1/me/sessions/revoke-all.',
        response: { 204: Type.Null(), ...errorResponses('CROSS_SITE_REQUEST') },
      },
    },
    async (request, reply) => {
      await endSession(database.db, request.cookies[SESSION_COOKIE]);
      clearSessionCookie(reply, config);
      return sendEmpty(reply, 204);
    },
  );
};
