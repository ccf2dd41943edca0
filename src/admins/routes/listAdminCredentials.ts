// GET /admin/v1/admin-credentials: every admin credential, never its secret (OWNER).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../../http/schemas.ts';
import { listAdminCredentials } from '../service.ts';
import { AdminCredential, security, tags } from './credential-schemas.ts';

export const listAdminCredentialsRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database } = app.deps;
  app.get(
    '/admin-credentials',
    {
      config: { minRole: 'OWNER' },
      schema: {
        operationId: 'listAdminCredentials',
        tags,
        security,
        summary: 'List admin credentials (never their secrets)',
        response: { 200: Type.Object({ items: Type.Array(AdminCredential) }), ...errorResponses() },
      },
    },
    async () => ({ items: await listAdminCredentials(database.db) }),
  );
};
