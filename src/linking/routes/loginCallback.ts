// GET /v1/mission-users/auth/callback: where the login provider sends the browser back.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../../http/schemas.ts';
import { CALLBACK_PATH, finishCallback } from '../service.ts';
import { browser, loginJourney, redirect } from './login-journey.ts';

export const loginCallbackRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { config } = app.deps;
  const { deps, finish, binding } = loginJourney(app.deps);
  app.get(
    '/mission-users/auth/callback',
    {
      config: browser,
      schema: {
        operationId: 'loginCallback',
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
};
