// GET /v1/login: the mission page's sign-in.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../../http/schemas.ts';
import { startSessionLogin } from '../service.ts';
import { browser, BrowserTypeQuery, loginJourney, redirect } from './login-journey.ts';

export const startSessionLoginRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { deps, go, binding } = loginJourney(app.deps);
  app.get(
    '/login',
    {
      config: browser,
      schema: {
        operationId: 'startSessionLogin',
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
};
