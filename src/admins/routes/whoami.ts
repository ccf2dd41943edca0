// GET /admin/v1/me: the credential making the call, so the console knows its name and role and
// can hide what the role may not do (the server refuses it anyway, 901); and the rules this
// deployment applies to webhook endpoint URLs, so the console's form says what it will accept.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { component, errorResponses, EXAMPLE } from '../../http/schemas.ts';
import { Role } from './credential-schemas.ts';
import { currentAdmin } from '../service.ts';

const WebhookUrlRules = Type.Object(
  {
    httpsRequired: Type.Boolean({ description: 'Endpoint URLs must be https (production)' }),
    privateAddressesAllowed: Type.Boolean({
      description: 'Endpoints may be loopback, private or link-local addresses (development, tests)',
    }),
  },
  { description: 'What this deployment accepts as a webhook endpoint URL' },
);

export const whoamiRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { database, config } = app.deps;
  app.get(
    '/me',
    {
      schema: {
        operationId: 'whoami',
        tags: ['admin: credentials'],
        security: [{ adminBearer: [] }],
        summary: 'The admin credential making this call (any role)',
        response: {
          200: Type.Object(
            {
              id: Type.String(),
              name: Type.String(),
              role: Role,
              prefix: Type.String(),
              webhookUrls: WebhookUrlRules,
            },
            {
              ...component('AdminIdentity'),
              examples: [
                {
                  id: EXAMPLE.adminId,
                  name: 'ops: Jiwoo',
                  role: 'OPERATOR',
                  prefix: 'adm_Vq3Lx9',
                  webhookUrls: { httpsRequired: true, privateAddressesAllowed: false },
                },
              ],
            },
          ),
          ...errorResponses(),
        },
      },
    },
    async (request) => {
      const { id, name, role, prefix } = await currentAdmin(database.db, request.admin.id);
      const webhookUrls = {
        httpsRequired: config.webhooks.requireHttps,
        privateAddressesAllowed: config.webhooks.allowPrivateAddresses,
      };
      return { id, name, role, prefix, webhookUrls };
    },
  );
};
