// The operator scope (/admin/v1): a bearer admin credential on every route, and a role check.
// Reading needs VIEWER, writing OPERATOR, unless a route asks for more in config.minRole. Every
// write route's handler runs in one transaction that names the operator (the audit log).
import type {
  FastifyInstance,
  FastifyPluginAsync,
  FastifyReply,
  FastifyRequest,
  RouteHandlerMethod,
  RouteOptions,
} from 'fastify';
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
  /**
   * Runs a write request's handler in one transaction that first names its operator, so that the
   * audit triggers record the change with it (src/audit/operator-writes.ts). Commits when `work`
   * resolves, rolls back when it throws.
   */
  inOperatorTransaction<T>(write: OperatorWrite, work: () => Promise<T>): Promise<T>;
  routes: FastifyPluginAsync[];
}

/** What the scope tells `inOperatorTransaction` about a write. */
export interface OperatorWrite {
  adminId: string;
  requestId: string;
  /** The route pattern, e.g. 'POST /admin/v1/partners/:partnerId', and its parameters. */
  route: string;
  params: Record<string, unknown>;
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function isWrite(method: RouteOptions['method']): boolean {
  return (Array.isArray(method) ? method : [method]).some((m) => WRITE_METHODS.has(m.toUpperCase()));
}

/** The handler's answer, whether it returned it or passed it to reply.send. */
type Answer = { sent: true; payload: unknown } | { sent: false; returned: unknown };

/** The answer is an error: nothing of the request may be committed. */
class NotCommitted {
  constructor(readonly answer: Answer) {}
}

/**
 * Wraps a write handler: it runs inside the operator's transaction, and what it sends waits for
 * the commit (a 2xx is only ever sent for a committed change). An error status or a thrown error
 * rolls the whole request back, whatever the services committed on their own (their transactions
 * are savepoints of this one). A handler that calls reply.send is done at that call: the reply
 * is a thenable that settles only once sent, so waiting for the handler itself would deadlock.
 */
function inOneTransaction(handler: RouteHandlerMethod, run: AdminScopeOptions['inOperatorTransaction']) {
  return async function operatorWrite(this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
    const send = reply.send;
    const write: OperatorWrite = {
      adminId: request.admin.id,
      requestId: request.id,
      route: `${request.method} ${request.routeOptions.url ?? request.url}`,
      params: (request.params ?? {}) as Record<string, unknown>,
    };
    const failed = (answer: Answer) =>
      reply.statusCode >= 400 || (answer.sent ? answer.payload : answer.returned) instanceof Error;
    let answer: Answer;
    try {
      answer = await run(write, async () => {
        const settled = await new Promise<Answer>((resolve, reject) => {
          reply.send = (payload?: unknown) => {
            resolve({ sent: true, payload });
            return reply;
          };
          Promise.resolve(handler.call(this, request, reply)).then(
            (returned) => resolve({ sent: false, returned }),
            reject,
          );
        });
        if (failed(settled)) throw new NotCommitted(settled);
        return settled;
      });
    } catch (error) {
      if (!(error instanceof NotCommitted)) {
        reply.send = send;
        throw error;
      }
      answer = error.answer;
    }
    reply.send = send;
    if (!answer.sent) return answer.returned;
    reply.send(answer.payload);
    return reply;
  } as RouteHandlerMethod;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated operator; set on every route of the admin scope. */
    admin: ScopeAdmin;
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
    route.config = { ...route.config, limitedBy: 'admin', scope: 'admin' };
    // Every write, including routes added later: none can forget the audit log.
    if (isWrite(route.method)) route.handler = inOneTransaction(route.handler, options.inOperatorTransaction);
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
