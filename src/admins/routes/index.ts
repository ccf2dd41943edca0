// Operator API: admin credentials (OWNER only).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { component, errorResponses, sendEmpty, EXAMPLE, Id } from '../../http/schemas.ts';
import { createAdminCredential, listAdminCredentials, revokeAdminCredential } from '../service.ts';

export const Role = Type.Union([Type.Literal('OWNER'), Type.Literal('OPERATOR'), Type.Literal('VIEWER')], {
  ...component('AdminRole'),
  description: 'What a credential may do: VIEWER reads, OPERATOR writes, OWNER also manages credentials',
});
const AdminCredential = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    role: Role,
    prefix: Type.String({
      description:
        'First characters of a generated secret (adm_…), to recognise it; empty for the ADMIN_TOKEN credential, whose secret a person chose',
    }),
    createdAt: Type.String(),
    revokedAt: Type.Union([Type.String(), Type.Null()]),
  },
  {
    ...component('AdminCredential'),
    examples: [
      {
        id: EXAMPLE.adminId,
        name: 'ops: Jiwoo',
        role: 'OPERATOR',
        prefix: 'adm_Vq3Lx9',
        createdAt: EXAMPLE.instant,
        revokedAt: null,
      },
    ],
  },
);
const NewAdminCredential = Type.Intersect(
  [
    AdminCredential,
    Type.Object({ secret: Type.String({ description: 'adm_...: shown only in this answer' }) }),
  ],
  {
    ...component('NewAdminCredential'),
    examples: [
      {
        id: EXAMPLE.adminId,
        name: 'ops: Jiwoo',
        role: 'OPERATOR',
        prefix: 'adm_Vq3Lx9',
        createdAt: EXAMPLE.instant,
        revokedAt: null,
        secret: 'adm_Vq3Lx9mK2tNw7cRb4yPe1sZd6gHa3uJf0oVi5kXq7tC',
      },
    ],
  },
);
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
          { additionalProperties: false, examples: [{ name: 'ops: Jiwoo', role: 'OPERATOR' }] },
        ),
        response: {
          201: NewAdminCredential,
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
