// DELETE /admin/v1/admin-credentials/{credentialId}: revoke a credential at once (OWNER).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, Id, sendEmpty } from '../../http/schemas.ts';
import { revokeAdminCredential } from '../service.ts';
import { security, tags } from './credential-schemas.ts';

export const revokeAdminCredentialRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock } = app.deps;
  app.delete(
    '/admin-credentials/:credentialId',
    {
      config: { minRole: 'OWNER' },
      schema: {
        operationId: 'revokeAdminCredential',
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
