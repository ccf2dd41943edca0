// The browser side of the login: the spec's login redirect, our callback, the LIFF entry page and
// its token post, and the mission page's sign-in and sign-out. No credentials: the partner is
// named by partnerId and the browser is sent only to URLs the partner registered.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { component, errorResponses, sendEmpty } from '../../http/schemas.ts';
import { clearSessionCookie, secureCookies, SESSION_COOKIE, setSessionCookie } from '../../http/session.ts';
import { refuseCrossSiteWrite } from '../../http/cross-site.ts';
import { endSession, startSession } from '../../sessions/service.ts';
import { liffNotConfigured } from '../../error-factories.ts';
import { liffPage } from '../../http/pages.ts';
import { startExpiredLoginPurge } from '../expiry-purge.ts';
import type { LoginDeps, LoginFinish, LoginStart } from '../service.ts';
import {
  CALLBACK_PATH,
  finishCallback,
  finishLiffLogin,
  LIFF_PATH,
  startLinkLogin,
  startSessionLogin,
} from '../service.ts';

/** The cookie that ties a login to the browser that started it (login CSRF protection). */
const BINDING_COOKIE = 'mrs_login';
const BINDING_PATH = '/v1/mission-users/auth';

// A string, not an enum: a value outside MINI, LIFF, WEB answers INVALID_BROWSER_TYPE (the service's check).
const BrowserTypeQuery = Type.Optional(
  Type.String({
    ...component('BrowserType'),
    maxLength: 16,
    description: 'The connection environment (spec 4.2): MINI, LIFF or WEB; empty means WEB',
    examples: ['MINI'],
  }),
);
const redirect = { 302: Type.Null({ description: 'Found: the Location header says where' }) };
const browser = { htmlErrors: true };

export const loginRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { config, database, clock, login } = app.deps;
  const deps = (): LoginDeps => ({ db: database.db, clock, config, client: login.client });
  const secure = secureCookies(config);

  // Expired login states, mapping tokens and sessions are purged by every process on a timer;
  // the timer ends with the app.
  let purge: { stop(): Promise<void> } | undefined;
  app.addHook('onReady', async () => {
    purge = startExpiredLoginPurge(database.db, clock, { log: app.log });
  });
  app.addHook('onClose', async () => purge?.stop());

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

  app.get(
    '/mission-users/auth',
    {
      config: browser,
      schema: {
        tags: ['partner'],
        summary: 'Login redirect: send the browser here to link its user (no headers)',
        description:
          'Redirects at once to the login. After the login the browser returns to redirectUrl with `token` ' +
          '(the one-time mapping token for connect) or `error` in the query.',
        querystring: Type.Object({
          partnerId: Type.String({ minLength: 1, maxLength: 200 }),
          redirectUrl: Type.String({
            minLength: 1,
            maxLength: 2048,
            description: "One of the partner's registered redirect URLs; the query may vary",
          }),
          browserType: BrowserTypeQuery,
        }),
        response: {
          ...redirect,
          ...errorResponses(
            'INVALID_REDIRECT_URL',
            'LOGIN_PARTNER_INVALID',
            'INVALID_BROWSER_TYPE',
            'LOGIN_PROVIDER_UNAVAILABLE',
          ),
        },
      },
    },
    async (request, reply) =>
      go(reply, await startLinkLogin(deps(), { ...request.query, binding: binding(request) })),
  );

  app.get(
    '/mission-users/auth/callback',
    {
      config: browser,
      schema: {
        tags: ['login'],
        summary: 'Where the login provider sends the browser back (register this URL with the provider)',
        querystring: Type.Object(
          { state: Type.Optional(Type.String({ maxLength: 512 })) },
          { additionalProperties: true },
        ),
        response: { ...redirect, ...errorResponses('LOGIN_STATE_INVALID') },
      },
    },
    async (request, reply) => {
      const callbackUrl = new URL(`${config.publicBaseUrl}${CALLBACK_PATH}`);
      callbackUrl.search = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
      return finish(
        request,
        reply,
        await finishCallback(deps(), { callbackUrl, binding: binding(request), log: request.log }),
      );
    },
  );

  app.get(
    LIFF_PATH.slice('/v1'.length),
    {
      config: browser,
      schema: {
        tags: ['login'],
        summary: 'LIFF entry page (register it as the LIFF endpoint URL)',
        hide: false,
      },
    },
    async (_request, reply) => {
      if (config.login.liffId === undefined) throw liffNotConfigured();
      return reply
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .send(liffPage(config.login.liffId, LIFF_PATH));
    },
  );

  app.post(
    LIFF_PATH.slice('/v1'.length),
    {
      schema: {
        tags: ['login'],
        summary: 'The LIFF page posts the ID token LINE gave it; the answer says where to go',
        body: Type.Object(
          {
            state: Type.String({ minLength: 1, maxLength: 128, examples: ['Vb3xQ9mK2tLw7cNr4yPe1sZd'] }),
            idToken: Type.String({
              minLength: 1,
              maxLength: 8192,
              description: 'The ID token (a JWT) LIFF gave the page',
              examples: ['eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJVNGFmNDk4MDYyOSJ9.c2lnbmF0dXJl'],
            }),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            redirectUrl: Type.String({
              examples: [
                'https://partner.example/mini-app/return?token=mtk_b3Jp8Xq2LmVt7cNw4yRk1sZe9gHd5aPf0uQx6iTo2Lk',
              ],
            }),
          }),
          ...errorResponses('LOGIN_STATE_INVALID', 'ID_TOKEN_INVALID', 'LIFF_NOT_CONFIGURED'),
        },
      },
    },
    async (request, reply) => {
      const result = await finishLiffLogin(deps(), request.body);
      if (result.accountId !== undefined) await signIn(request, reply, result.accountId);
      return { redirectUrl: result.location };
    },
  );

  app.get(
    '/login',
    {
      config: browser,
      schema: {
        tags: ['user'],
        summary: 'Sign in to the mission page; returns to returnTo (a path of this service, default /app)',
        querystring: Type.Object({
          returnTo: Type.Optional(Type.String({ maxLength: 512 })),
          browserType: BrowserTypeQuery,
          prompt: Type.Optional(
            Type.Literal('login', {
              description:
                'login: the provider asks for the login again (after a sign-out, to switch accounts)',
            }),
          ),
        }),
        response: { ...redirect, ...errorResponses('INVALID_RETURN_PATH', 'LOGIN_PROVIDER_UNAVAILABLE') },
      },
    },
    async (request, reply) =>
      go(reply, await startSessionLogin(deps(), { ...request.query, binding: binding(request) })),
  );

  app.post(
    '/logout',
    {
      // Cookie-authenticated: a page of another site must not sign the user out (or in, elsewhere).
      onRequest: refuseCrossSiteWrite,
      schema: {
        tags: ['user'],
        summary: 'Sign out of the mission page: ends this session on every process at once',
        description: 'To end every session of the account, POST /v1/me/sessions/revoke-all.',
        response: { 204: Type.Null(), ...errorResponses('CROSS_SITE_REQUEST') },
      },
    },
    async (request, reply) => {
      await endSession(database.db, request.cookies[SESSION_COOKIE]);
      clearSessionCookie(reply, config);
      return sendEmpty(reply, 204);
    },
  );
};
