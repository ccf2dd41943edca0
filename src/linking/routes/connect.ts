// POST /v1/mission-users/connect: the partner's server finalises the link with the one-time
// mapping token its front end received (spec 4.3).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { component, errorResponses, EXAMPLE, PartnerUid, sendEmpty } from '../../http/schemas.ts';
import { connect } from '../service.ts';
import type { UserLinkedHandler } from '../service.ts';

/** The user's country (spec 2.1, `region`). */
export const Region = Type.String({
  ...component('Region'),
  minLength: 1,
  maxLength: 16,
  description: 'ISO 3166-1 alpha-2 country code',
  examples: ['KR', 'JP', 'TW'],
});

export function connectRoute(onLinked: readonly UserLinkedHandler[]): FastifyPluginAsyncTypebox {
  return async (app) => {
    const { database, clock } = app.deps;
    app.post(
      '/mission-users/connect',
      {
        config: { idempotency: 'keyed' },
        schema: {
          operationId: 'connect',
          tags: ['partner'],
          summary: 'Register the user mapping with a one-time mapping token',
          security: [{ partnerId: [], partnerApiKey: [] }],
          body: Type.Object(
            {
              token: Type.String({
                minLength: 1,
                maxLength: 256,
                description: 'The `token` query parameter the browser came back with',
              }),
              partnerUid: PartnerUid,
              region: Region,
            },
            {
              ...component('ConnectRequest'),
              additionalProperties: false,
              description: 'Finalises a user mapping (spec 4.3) with the one-time mapping token',
              examples: [
                {
                  token: 'mtk_b3Jp8Xq2LmVt7cNw4yRk1sZe9gHd5aPf0uQx6iTo2Lk',
                  partnerUid: EXAMPLE.partnerUid,
                  region: 'KR',
                },
              ],
            },
          ),
          response: {
            200: Type.Null({ description: 'Empty body: the mapping exists' }),
            ...errorResponses(
              'MAPPING_TOKEN_INVALID',
              'MAPPING_TOKEN_EXPIRED',
              'INVALID_REGION',
              'MAPPING_TOKEN_WRONG_PARTNER',
              'MAPPING_TOKEN_USED',
              'PARTNER_USER_LINKED_ELSEWHERE',
              'ACCOUNT_LINKED_ELSEWHERE',
            ),
          },
        },
      },
      async (request, reply) => {
        const { created } = await connect(
          { db: database.db, clock },
          request.partner.id,
          request.body,
          onLinked,
        );
        request.log.info(
          { partnerId: request.partner.id, partnerUid: request.body.partnerUid, created },
          'user mapping connected',
        );
        return sendEmpty(reply, 200);
      },
    );
  };
}
