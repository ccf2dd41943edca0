// GET /admin/v1/partners/{partnerId}: Get a partner.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../../http/schemas.ts';
import * as partners from '../service.ts';
import { Partner, PartnerParams, security, tags } from './schemas.ts';

export const getPartnerRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database } = app.deps;
  app.get(
    '/partners/:partnerId',
    {
      schema: {
        operationId: 'getPartner',
        tags,
        security,
        summary: 'Get a partner',
        params: PartnerParams,
        response: { 200: Partner, ...errorResponses('NOT_FOUND_PARTNER') },
      },
    },
    async (request) => partners.getPartner(database.db, request.params.partnerId),
  );
};
