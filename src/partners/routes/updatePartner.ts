// PATCH /admin/v1/partners/{partnerId}: Change a partner (name, status, allow-list, redirect URLs).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../../http/schemas.ts';
import * as partners from '../service.ts';
import { Cidrs, Partner, PartnerParams, RedirectUrls, security, Status, tags } from './schemas.ts';

export const updatePartnerRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock } = app.deps;
  app.patch(
    '/partners/:partnerId',
    {
      schema: {
        operationId: 'updatePartner',
        tags,
        security,
        summary: 'Change a partner (name, status, allow-list, redirect URLs)',
        params: PartnerParams,
        body: Type.Object(
          {
            name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
            status: Type.Optional(Status),
            allowedIps: Type.Optional(Cidrs),
            redirectUrls: Type.Optional(RedirectUrls),
          },
          {
            additionalProperties: false,
            minProperties: 1,
            examples: [{ allowedIps: ['203.0.113.10', '203.0.113.11'] }, { status: 'DISABLED' }],
          },
        ),
        response: { 200: Partner, ...errorResponses('NOT_FOUND_PARTNER') },
      },
    },
    async (request) => partners.updatePartner(database.db, clock, request.params.partnerId, request.body),
  );
};
