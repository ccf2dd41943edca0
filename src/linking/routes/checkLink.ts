// GET /v1/mission-users: is this partner user linked to a platform account? (spec 4.1)
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { component, errorResponses, PartnerUid } from '../../http/schemas.ts';
import { createLinkCheck } from '../service.ts';

export const checkLinkRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database, config } = app.deps;
  const isLinked = createLinkCheck(database.db, {
    concurrency: config.batchConcurrency,
    group: app.coalescers,
  });
  app.get(
    '/mission-users',
    {
      schema: {
        operationId: 'checkLink',
        tags: ['partner'],
        summary: 'Check whether a partner user is linked',
        security: [{ partnerId: [], partnerApiKey: [] }],
        querystring: Type.Object({ partnerUid: PartnerUid }, { additionalProperties: false }),
        response: {
          200: Type.Object(
            { result: Type.Boolean({ description: 'true if linked, false otherwise' }) },
            {
              ...component('LinkCheckResult'),
              description: 'The link check (spec 4.1)',
              examples: [{ result: true }, { result: false }],
            },
          ),
          ...errorResponses(),
        },
      },
    },
    async (request) => ({ result: await isLinked(request.partner.id, request.query.partnerUid) }),
  );
};
