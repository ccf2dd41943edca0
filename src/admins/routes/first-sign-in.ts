// POST /admin/v1/first-sign-in: the development first-OWNER sign-in (no credential needed: the
// one-time code printed at start-up is the proof). Registered only outside production.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../../http/schemas.ts';
import { useFirstSignIn } from '../first-sign-in.ts';

export const firstSignInRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock } = app.deps;
  app.post(
    '/first-sign-in',
    {
      schema: {
        operationId: 'useFirstSignIn',
        tags: ['admin: credentials'],
        summary:
          'Development only: exchange the one-time code printed at start-up for the first OWNER credential',
        body: Type.Object(
          { code: Type.String({ minLength: 1, maxLength: 200 }) },
          {
            additionalProperties: false,
            examples: [{ code: 'fsi_4Xk2mP9qLw7tNc3vBz8yRd1sHf6gJa0uKe5oVi2xQ' }],
          },
        ),
        response: {
          201: Type.Object(
            {
              id: Type.String(),
              name: Type.String(),
              role: Type.String(),
              secret: Type.String({ description: 'adm_...: shown only in this answer' }),
            },
            {
              examples: [
                {
                  id: 'adc_7Qm2xK9vLc4tNw1yHs3r0A',
                  name: 'first owner (development)',
                  role: 'OWNER',
                  secret: 'adm_Vq3Lx9mK2tNw7cRb4yPe1sZd6gHa3uJf0oVi5kXq7tC',
                },
              ],
            },
          ),
          ...errorResponses('FIRST_SIGN_IN_INVALID'),
        },
      },
    },
    async (request, reply) => {
      const created = await useFirstSignIn(database.db, clock, request.body.code);
      return reply
        .code(201)
        .send({ id: created.id, name: created.name, role: created.role, secret: created.secret });
    },
  );
};
