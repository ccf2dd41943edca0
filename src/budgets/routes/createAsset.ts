// POST /admin/v1/reward-assets: create a reward asset (a fungible token).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../../http/schemas.ts';
import { createAsset } from '../service.ts';
import { Asset, security, tags } from './schemas.ts';

export const createAssetRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock } = app.deps;
  app.post(
    '/reward-assets',
    {
      config: { idempotency: 'keyed' },
      schema: {
        operationId: 'createAsset',
        tags,
        security,
        summary: 'Create a reward asset (a fungible token)',
        body: Type.Object(
          {
            symbol: Type.String({ minLength: 1, maxLength: 16 }),
            name: Type.String({ minLength: 1, maxLength: 200 }),
            decimals: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 36 }), Type.Null()])),
          },
          { additionalProperties: false, examples: [{ symbol: 'PNT', name: 'Acme points', decimals: 2 }] },
        ),
        response: { 201: Asset, ...errorResponses('CONFLICT') },
      },
    },
    async (request, reply) => reply.code(201).send(await createAsset(database.db, clock, request.body)),
  );
};
