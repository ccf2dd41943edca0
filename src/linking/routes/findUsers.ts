// Operator API: a partner's users found by their platform account (the console's user look-up).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, Id } from '../../http/schemas.ts';
import { findUsersByAccount } from '../find-users.ts';
import { Mapping } from './mapping-schemas.ts';

export const findUsersRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { database } = app.deps;
  app.get(
    '/partners/:partnerId/users',
    {
      schema: {
        operationId: 'findUsersByAccount',
        tags: ['admin: users'],
        security: [{ adminBearer: [] }],
        summary: "A partner's users linked to one platform account",
        params: Type.Object({ partnerId: Id('Partner id') }),
        querystring: Type.Object({ account: Id('Platform account id') }, { additionalProperties: false }),
        response: {
          200: Type.Object({ items: Type.Array(Mapping) }),
          ...errorResponses('NOT_FOUND_PARTNER'),
        },
      },
    },
    async (request) => ({
      items: await findUsersByAccount(database.db, request.params.partnerId, request.query.account),
    }),
  );
};
