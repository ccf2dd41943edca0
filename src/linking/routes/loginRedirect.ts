// GET /v1/mission-users/auth: the spec's login redirect (no credentials: the partner is named by
// partnerId, and the browser returns only to a URL the partner registered).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../../http/schemas.ts';
import { startLinkLogin } from '../service.ts';
import { browser, BrowserTypeQuery, loginJourney, redirect } from './login-journey.ts';
import { Type } from 'typebox';

export const loginRedirectRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { deps, go, binding } = loginJourney(app.deps);
  app.get(
    '/mission-users/auth',
    {
      config: browser,
      schema: {
        operationId: 'loginRedirect',
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
};
