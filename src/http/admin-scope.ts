// The operator scope (/admin/v1): a bearer admin credential on every route, and a role check.
// Reading needs VIEWER, writing OPERATOR, unless a route asks for more in config.minRole.
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import {
  adminCredentialInvalid,
  adminCredentialsMissing,
  adminPermissionDenied,
} from '../error-factories.ts';
import type { AdminRole } from '../db/schema.ts';
import { roleAtLeast } from '../domain/admin-roles.ts';

/** What the scope needs of an authenticated operator. */
export interface ScopeAdmin {
  id: string;
  role: AdminRole;
}

export interface AdminScopeOptions {
  /** The operator a bearer secret names, or undefined (admins/service.ts answers it). */
  authenticate(secret: string): Promise<ScopeAdmin | undefined>;
  /** After each successful write: anything cached from the data may be stale now. */
  afterWrite(): Promise<void>;
  routes: FastifyPluginAsync[];
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated operator; set on every route of the admin scope. */
    admin: ScopeAdmin;
  }
  interface FastifyContextConfig {
    /** Least role a route of the admin scope needs; by default VIEWER to read, OPERATOR to write. */
    minRole?: AdminRole;
  }
}

// A failed bearer is counted per address, and beyond the limit answers 429.
async function requireAdmin(
  request: FastifyRequest,
  reply: FastifyReply,
  authenticate: AdminScopeOptions['authenticate'],
): Promise<void> {
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer ([\x21-\x7e]{1,512})$/i.exec(header) : null;
  if (!match?.[1]) {
    await request.server.limits.failedAdminBearer(request, reply);
    throw adminCredentialsMissing();
  }
  const admin = await authenticate(match[1]);
  if (!admin) {
    await request.server.limits.failedAdminBearer(request, reply);
    throw adminCredentialInvalid();
  }
  request.admin = admin;
  const reading = request.method === 'GET' || request.method === 'HEAD';
  const required = request.routeOptions.config.minRole ?? (reading ? 'VIEWER' : 'OPERATOR');
  if (!roleAtLeast(admin.role, required)) {
    throw adminPermissionDenied(required, admin.role);
  }
}

export async function adminScope(app: FastifyInstance, options: AdminScopeOptions): Promise<void> {
  app.decorateRequest('admin', null as unknown as ScopeAdmin);
  // Operators are authenticated and few: only their failed bearers are limited (per address).
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, limitedBy: 'admin' };
  });
  app.addHook('onRequest', (request, reply) => requireAdmin(request, reply, options.authenticate));
  // Any successful operator write may change what the hot-path caches hold: clear them on every
  // process (after the write committed: the answer is being sent).
  app.addHook('onResponse', async (request, reply) => {
    if (request.method === 'GET' || request.method === 'HEAD' || reply.statusCode >= 400) return;
    await options
      .afterWrite()
      .catch((err: unknown) =>
        request.log.warn({ err }, 'cache flush notification failed; entries expire within a second'),
      );
  });
  for (const routes of options.routes) await app.register(routes);
}
