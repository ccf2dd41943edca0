// The operator scope (/admin/v1): a bearer admin credential on every route, and a role check.
// Reading needs VIEWER, writing OPERATOR, unless a route asks for more in config.minRole.
import { rewardsAdminRoutes } from '../rewards/routes/admin.ts';
import { drawAdminRoutes } from '../rewards/routes/draws.ts';
import { linkingAdminRoutes } from '../linking/routes/admin.ts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { appError } from '../errors.ts';
import type { AdminRole } from '../db/schema.ts';
import type { AuthenticatedAdmin } from '../admins/service.ts';
import { authenticateAdmin, roleAtLeast } from '../admins/service.ts';
import { adminCredentialRoutes } from '../admins/routes/index.ts';
import { whoamiRoutes } from '../admins/routes/whoami.ts';
import { reportRoutes } from '../reports/routes/index.ts';
import { partnerAdminRoutes } from '../partners/routes/index.ts';
import { catalogAdminRoutes } from '../catalog/routes/index.ts';
import { progressAdminRoutes } from '../progress/routes/index.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated operator; set on every route of the admin scope. */
    admin: AuthenticatedAdmin;
  }
  interface FastifyContextConfig {
    /** Least role a route of the admin scope needs; by default VIEWER to read, OPERATOR to write. */
    minRole?: AdminRole;
  }
}

async function requireAdmin(request: FastifyRequest): Promise<void> {
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer ([\x21-\x7e]{1,512})$/i.exec(header) : null;
  if (!match?.[1]) throw appError('ADMIN_UNAUTHORIZED', 'send Authorization: Bearer <admin secret>');
  const admin = await authenticateAdmin(request.server.deps.database.db, match[1]);
  if (!admin) throw appError('ADMIN_UNAUTHORIZED', 'invalid or revoked admin credential');
  request.admin = admin;
  const reading = request.method === 'GET' || request.method === 'HEAD';
  const required = request.routeOptions.config.minRole ?? (reading ? 'VIEWER' : 'OPERATOR');
  if (!roleAtLeast(admin.role, required)) {
    throw appError('ADMIN_PERMISSION_DENIED', `this needs the ${required} role; your credential is ${admin.role}`);
  }
}

export async function adminScope(app: FastifyInstance): Promise<void> {
  app.decorateRequest('admin', null as unknown as AuthenticatedAdmin);
  app.addHook('onRequest', requireAdmin);
  // Any successful operator write may change what the hot-path caches hold: clear them on every
  // process (after the write committed: the answer is being sent).
  app.addHook('onResponse', async (request, reply) => {
    if (request.method === 'GET' || request.method === 'HEAD' || reply.statusCode >= 400) return;
    await request.server.deps.caches.flushEverywhere().catch((err: unknown) => request.log.warn({ err }, 'cache flush notification failed; entries expire within a second'));
  });
  await app.register(adminCredentialRoutes);
  await app.register(whoamiRoutes);
  await app.register(partnerAdminRoutes);
  await app.register(catalogAdminRoutes);
  await app.register(progressAdminRoutes);
  await app.register(linkingAdminRoutes);
  await app.register(rewardsAdminRoutes);
  await app.register(reportRoutes);
  await app.register(drawAdminRoutes);
}
