// POST /v1/mission-users/auth/liff: the LIFF page posts its ID token; the answer says where to go.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../../http/schemas.ts';
import { finishLiffLogin, LIFF_PATH } from '../service.ts';
import { loginJourney } from './login-journey.ts';

export const liffLoginRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { deps, signIn } = loginJourney(app.deps);
  app.post(
    LIFF_PATH.slice('/v1'.length),
    {
      schema: {
        operationId: 'liffLogin',
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
};
