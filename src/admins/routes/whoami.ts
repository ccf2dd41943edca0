// GET /admin/v1/me: the credential making the call, so the console knows its name and role and
// can hide what the role may not do (the server refuses it anyway, 901).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { component, errorResponses, EXAMPLE } from '../../http/schemas.ts';
import { Role } from './index.ts';
import { currentAdmin } from '../service.ts';

export const whoamiRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { database } = app.deps;
  app.get(
    '/me',
    {
      schema: {
        tags: ['admin: credentials'],
        security: [{ adminBearer: [] }],
        summary: 'The admin credential making this call (any role)',
        response: {
          200: Type.Object(
            { id: Type.String(), name: Type.String(), role: Role, prefix: Type.String() },
            {
              ...component('AdminIdentity'),
              examples: [{ id: EXAMPLE.adminId, name: 'ops: Jiwoo', role: 'OPERATOR', prefix: 'adm_Vq3Lx9' }],
            },
          ),
          ...errorResponses(),
        },
      },
    },
    async (request) => {
      const { id, name, role, prefix } = await currentAdmin(database.db, request.admin.id);
      return { id, name, role, prefix };
    },
  );
};
