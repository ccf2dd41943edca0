// GET /admin/v1/reward-assets: every reward asset.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../../http/schemas.ts';
import { listAssets } from '../service.ts';
import { Asset, security, tags } from './schemas.ts';

export const listAssetsRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database } = app.deps;
  app.get(
    '/reward-assets',
    {
      schema: {
        operationId: 'listAssets',
        tags,
        security,
        summary: 'List reward assets',
        response: { 200: Type.Object({ items: Type.Array(Asset) }), ...errorResponses() },
      },
    },
    async () => ({ items: await listAssets(database.db) }),
  );
};
