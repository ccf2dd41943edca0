// Operator API: reward assets (fungible tokens with decimals).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../../http/schemas.ts';
import { createAsset, getAsset, listAssets, updateAsset } from '../service.ts';
import { IdParams, Nullable, page, Paging, security, tags } from './schemas.ts';

const Asset = Type.Object({
  id: Type.String(),
  type: Type.Literal('FT'),
  symbol: Type.String(),
  name: Type.String(),
  decimals: Nullable(Type.Integer({ description: 'null until set; such an asset cannot back a budget (1402)' })),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});
const Symbol = Type.String({ minLength: 1, maxLength: 16, pattern: '^[A-Za-z0-9._-]+$', examples: ['PNT'] });
const Name = Type.String({ minLength: 1, maxLength: 200 });
const Decimals = Type.Integer({ minimum: 0, maximum: 36, description: 'Digits after the point of a whole unit; set once' });
const Params = IdParams('assetId', 'Reward asset id');

export const assetRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock } = app.deps;
  const db = database.db;
  const t = tags.assets;

  app.post(
    '/reward-assets',
    {
      schema: {
        tags: t,
        security,
        summary: 'Create a reward asset (a fungible token); decimals may be set now or once later',
        body: Type.Object({ type: Type.Optional(Type.Literal('FT')), symbol: Symbol, name: Name, decimals: Type.Optional(Nullable(Decimals)) }, { additionalProperties: false }),
        response: { 201: Asset, ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => reply.code(201).send(await createAsset(db, clock, request.body)),
  );

  app.get(
    '/reward-assets',
    {
      schema: {
        tags: t,
        security,
        summary: 'List reward assets',
        querystring: Type.Object(Paging, { additionalProperties: false }),
        response: { 200: Type.Object({ items: Type.Array(Asset) }), ...errorResponses(400, 401) },
      },
    },
    async (request) => ({ items: await listAssets(db, page(request.query)) }),
  );

  app.get(
    '/reward-assets/:assetId',
    { schema: { tags: t, security, summary: 'Get a reward asset', params: Params, response: { 200: Asset, ...errorResponses(401, 404) } } },
    async (request) => getAsset(db, request.params.assetId),
  );

  app.patch(
    '/reward-assets/:assetId',
    {
      schema: {
        tags: t,
        security,
        summary: 'Rename an asset, or set its decimals (once: 3504 after that)',
        params: Params,
        body: Type.Object({ symbol: Type.Optional(Symbol), name: Type.Optional(Name), decimals: Type.Optional(Decimals) }, { additionalProperties: false, minProperties: 1 }),
        response: { 200: Asset, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => updateAsset(db, clock, request.params.assetId, request.body),
  );
};
