// POST /admin/v1/admin-credentials: create an admin credential (OWNER; the secret shown once).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../../http/schemas.ts';
import { createAdminCredential } from '../service.ts';
import { NewAdminCredential, Role, security, tags } from './credential-schemas.ts';

export const createAdminCredentialRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock } = app.deps;
  app.post(
    '/admin-credentials',
    {
      config: { minRole: 'OWNER', idempotency: 'refused' },
      schema: {
        operationId: 'createAdminCredential',
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
};
