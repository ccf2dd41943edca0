// GET /admin/v1/reward-assets/{id}: one reward asset.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../../http/schemas.ts';
import { getAsset } from '../service.ts';
import { Asset, IdParam, security, tags } from './schemas.ts';

export const getAssetRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database } = app.deps;
  app.get(
    '/reward-assets/:id',
    {
      schema: {
        operationId: 'getAsset',
        tags,
        security,
        summary: 'A reward asset',
        params: IdParam('Asset id'),
        response: { 200: Asset, ...errorResponses('NOT_FOUND_REWARD_ASSET') },
      },
    },
    async (request) => getAsset(database.db, request.params.id),
  );
};
