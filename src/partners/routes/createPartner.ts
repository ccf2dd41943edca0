// POST /admin/v1/partners: Register a partner.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../../http/schemas.ts';
import * as partners from '../service.ts';
import { Cidrs, Partner, RedirectUrls, security, tags } from './schemas.ts';

export const createPartnerRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock } = app.deps;
  app.post(
    '/partners',
    {
      config: { idempotency: 'keyed' },
      schema: {
        operationId: 'createPartner',
        tags,
        security,
        summary: 'Register a partner',
        body: Type.Object(
          {
            name: Type.String({ minLength: 1, maxLength: 200 }),
            allowedIps: Type.Optional(Cidrs),
            redirectUrls: Type.Optional(RedirectUrls),
          },
          {
            additionalProperties: false,
            examples: [
              {
                name: 'Acme Games',
                allowedIps: ['203.0.113.10', '198.51.100.0/24'],
                redirectUrls: ['https://partner.example/mini-app/return'],
              },
            ],
          },
        ),
        response: { 201: Partner, ...errorResponses() },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await partners.createPartner(database.db, clock, request.body)),
  );
};
