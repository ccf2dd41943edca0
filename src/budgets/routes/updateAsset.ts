// PATCH /admin/v1/reward-assets/{id}: rename an asset or set its decimals (once).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../../http/schemas.ts';
import { updateAsset } from '../service.ts';
import { Asset, IdParam, security, tags } from './schemas.ts';

export const updateAssetRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock } = app.deps;
  app.patch(
    '/reward-assets/:id',
    {
      schema: {
        operationId: 'updateAsset',
        tags,
        security,
        summary: 'Rename an asset or set its decimals (once)',
        params: IdParam('Asset id'),
        body: Type.Object(
          {
            name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
            decimals: Type.Optional(Type.Integer({ minimum: 0, maximum: 36 })),
          },
          { additionalProperties: false, examples: [{ decimals: 2 }, { name: 'Acme reward points' }] },
        ),
        response: { 200: Asset, ...errorResponses('NOT_FOUND_REWARD_ASSET', 'DECIMALS_ALREADY_SET') },
      },
    },
    async (request) => updateAsset(database.db, clock, request.params.id, request.body),
  );
};
