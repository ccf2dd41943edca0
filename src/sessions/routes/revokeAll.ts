// POST /v1/me/sessions/revoke-all: "sign out everywhere" ends every session of the signed-in
// account, on every browser and in every process, this one included.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../../http/schemas.ts';
import { clearSessionCookie } from '../../http/session.ts';
import { endAllSessions } from '../service.ts';

export const revokeAllSessionsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { database, config } = app.deps;
  app.post(
    '/sessions/revoke-all',
    {
      schema: {
        operationId: 'revokeAllSessions',
        tags: ['user'],
        summary: 'Sign out everywhere: end every session of this account, this one included',
        response: {
          200: Type.Object({
            endedSessions: Type.Integer({ description: 'Sessions ended, this one included' }),
          }),
          ...errorResponses('CROSS_SITE_REQUEST'),
        },
      },
    },
    async (request, reply) => {
      const endedSessions = await endAllSessions(database.db, request.account.id);
      clearSessionCookie(reply, config);
      return { endedSessions };
    },
  );
};
