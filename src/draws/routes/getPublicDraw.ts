// GET /v1/draws/{id}: a lucky draw anyone can check, without credentials; its title in the reader's
// language (?lang=, else Accept-Language, else the default title).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../../http/schemas.ts';
import { LangQuery, readerLanguage } from '../../catalog/titles.ts';
import { getDraw } from '../service.ts';
import { Draw, params } from './schemas.ts';

export const getPublicDrawRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/draws/:id',
    {
      schema: {
        operationId: 'getPublicDraw',
        tags: ['public'],
        summary: 'A lucky draw: commitment before, seed and winners after (no credentials)',
        params,
        querystring: Type.Object({ lang: LangQuery }, { additionalProperties: false }),
        response: { 200: Draw, ...errorResponses('NOT_FOUND_DRAW') },
      },
    },
    async (request) =>
      getDraw(
        app.deps.database.db,
        request.params.id,
        readerLanguage(request.query.lang, request.headers['accept-language']),
      ),
  );
};
