// Operator API: admin credentials (OWNER only).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, sendEmpty, Id } from '../../http/schemas.ts';
import { createAdminCredential, listAdminCredentials, revokeAdminCredential } from '../service.ts';

const Role = Type.Union([Type.Literal('OWNER'), Type.Literal('OPERATOR'), Type.Literal('VIEWER')]);
const AdminCredential = Type.Object({
  id: Type.String(),
  name: Type.String(),
  role: Role,
  prefix: Type.String({
    description:
      'First characters of a generated secret (adm_…), to recognise it; empty for the ADMIN_TOKEN credential, whose secret a person chose',
  }),
  createdAt: Type.String(),
  revokedAt: Type.Union([Type.String(), Type.Null()]),
});
const tags = ['admin: credentials'];
const security = [{ adminBearer: [] }];

export const adminCredentialRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock } = app.deps;

  app.post(
    '/admin-credentials',
    {
      config: { minRole: 'OWNER' },
      schema: {
        tags,
        security,
        summary: 'Create an admin credential; the secret is shown only in this answer',
        body: Type.Object(
          { name: Type.String({ minLength: 1, maxLength: 200 }), role: Role },
          { additionalProperties: false },
        ),
        response: {
          201: Type.Intersect([AdminCredential, Type.Object({ secret: Type.String() })]),
          ...errorResponses(),
        },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await createAdminCredential(database.db, clock, request.body)),
  );

  app.get(
    '/admin-credentials',
    {
      config: { minRole: 'OWNER' },
      schema: {
        tags,
        security,
        summary: 'List admin credentials (never their secrets)',
        response: { 200: Type.Object({ items: Type.Array(AdminCredential) }), ...errorResponses() },
      },
    },
    async () => ({ items: await listAdminCredentials(database.db) }),
  );

  app.delete(
    '/admin-credentials/:credentialId',
    {
      config: { minRole: 'OWNER' },
      schema: {
        tags,
        security,
        summary: 'Revoke an admin credential at once',
        params: Type.Object({ credentialId: Id('Admin credential id') }),
        response: { 204: Type.Null(), ...errorResponses('NOT_FOUND_ADMIN_CREDENTIAL', 'LAST_OWNER') },
      },
    },
    async (request, reply) => {
      await revokeAdminCredential(database.db, clock, request.params.credentialId);
      return sendEmpty(reply, 204);
    },
  );
};
