// Operator API: admin credentials (OWNER only), one file per operation.
import type { FastifyPluginAsync } from 'fastify';
import { createAdminCredentialRoute } from './createAdminCredential.ts';
import { listAdminCredentialsRoute } from './listAdminCredentials.ts';
import { revokeAdminCredentialRoute } from './revokeAdminCredential.ts';

/** Registers the admin credential operations. */
export const adminCredentialRoutes: FastifyPluginAsync = async (app) => {
  const routes = [
    createAdminCredentialRoute,
    listAdminCredentialsRoute,
    revokeAdminCredentialRoute,
  ] as FastifyPluginAsync[];
  for (const route of routes) await app.register(route);
};
