// What the login routes share: the binding cookie that ties a login to the browser that started it
// (login CSRF protection), the redirect and sign-in steps, and the schemas of the browser pages.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { component } from '../../http/schemas.ts';
import { secureCookies, SESSION_COOKIE, setSessionCookie } from '../../http/session.ts';
import { endSession, startSession } from '../../sessions/service.ts';
import type { LoginDeps, LoginFinish, LoginStart } from '../service.ts';

/** The cookie that ties a login to the browser that started it (login CSRF protection). */
const BINDING_COOKIE = 'mrs_login';
const BINDING_PATH = '/v1/mission-users/auth';

// A string, not an enum: a value outside MINI, LIFF, WEB answers INVALID_BROWSER_TYPE (the service's check).
export const BrowserTypeQuery = Type.Optional(
  Type.String({
    ...component('BrowserType'),
    maxLength: 16,
    description: 'The connection environment (spec 4.2): MINI, LIFF or WEB; empty means WEB',
    examples: ['MINI'],
  }),
);
export const redirect = { 302: Type.Null({ description: 'Found: the Location header says where' }) };
export const browser = { htmlErrors: true };

/** The login's steps over the app's dependencies, for the routes of the journey. */
export function loginJourney(appDeps: FastifyInstance['deps']) {
  const { config, database, clock, login } = appDeps;
  const deps = (): LoginDeps => ({ db: database.db, clock, config, client: login.client });
  const secure = secureCookies(config);
  function go(reply: FastifyReply, start: LoginStart): FastifyReply {
    if (start.binding !== undefined) {
      reply.setCookie(BINDING_COOKIE, start.binding, {
        path: BINDING_PATH,
        httpOnly: true,
        sameSite: 'lax',
        secure,
        maxAge: config.login.stateTtlSeconds,
      });
    }
    return reply.header('cache-control', 'no-store').redirect(start.location, 302);
  }

  /**
   * Signs this browser in: a new server-side session replaces any it had (its old session ends,
   * so a session id planted before the login is worth nothing after it).
   */
  async function signIn(request: FastifyRequest, reply: FastifyReply, accountId: string): Promise<void> {
    await endSession(database.db, request.cookies[SESSION_COOKIE]);
    const session = await startSession(database.db, clock, accountId, config.sessionTtlSeconds);
    setSessionCookie(reply, config, session.id);
  }

  async function finish(
    request: FastifyRequest,
    reply: FastifyReply,
    result: LoginFinish,
  ): Promise<FastifyReply> {
    if (result.accountId !== undefined) await signIn(request, reply, result.accountId);
    return reply
      .header('cache-control', 'no-store')
      .header('referrer-policy', 'no-referrer')
      .redirect(result.location, 302);
  }

  const binding = (request: FastifyRequest) => request.cookies[BINDING_COOKIE];
  return { deps, go, signIn, finish, binding };
}
