// GET /v1/me: the signed-in platform account and the partner users linked to it.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { component, errorResponses, EXAMPLE } from '../../http/schemas.ts';
import { signedInAccount } from '../links.ts';

export const meRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { database } = app.deps;
  app.get(
    '/',
    {
      schema: {
        operationId: 'getMe',
        tags: ['user'],
        summary: 'The signed-in account and its linked partner users',
        response: {
          200: Type.Object(
            {
              accountId: Type.String(),
              displayName: Type.Union([Type.String(), Type.Null()]),
              mappings: Type.Array(
                Type.Object({
                  partnerId: Type.String(),
                  partnerName: Type.String(),
                  partnerUid: Type.String(),
                  region: Type.String(),
                  linkedAt: Type.String(),
                }),
              ),
            },
            {
              ...component('SignedInAccount'),
              examples: [
                {
                  accountId: EXAMPLE.accountId,
                  displayName: 'Minji',
                  mappings: [
                    {
                      partnerId: EXAMPLE.partnerId,
                      partnerName: 'Acme Games',
                      partnerUid: EXAMPLE.partnerUid,
                      region: 'KR',
                      linkedAt: EXAMPLE.later,
                    },
                  ],
                },
              ],
            },
          ),
          ...errorResponses(),
        },
      },
    },
    async (request) => signedInAccount(database.db, request.account.id),
  );
};
