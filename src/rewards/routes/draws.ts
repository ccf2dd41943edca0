// Lucky draws: operator routes (create, list, run) and the public view anyone can check.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, Id, Instant, ListQuery } from '../../http/schemas.ts';
import { createDraw, getDraw, listDraws, runDraw } from '../../draws/service.ts';

export const Draw = Type.Object({
  id: Type.String(),
  budgetId: Type.String(),
  title: Type.String(),
  status: Type.Union([Type.Literal('COMMITTED'), Type.Literal('DRAWN')]),
  scheduledAt: Type.String(),
  commitment: Type.String({ description: 'SHA-256 (hex) of the seed, published before the draw' }),
  seed: Type.Union([Type.String(), Type.Null()], { description: 'Published after the draw' }),
  prizeAmount: Type.String(),
  assetSymbol: Type.String(),
  winnersCount: Type.Integer(),
  ticketCount: Type.Union([Type.Integer(), Type.Null()]),
  drawnAt: Type.Union([Type.String(), Type.Null()]),
  tickets: Type.Union([Type.Array(Type.String()), Type.Null()], {
    description: 'Every ticket in the draw, to recompute the winners',
  }),
  winners: Type.Union([Type.Array(Type.Object({ ticketId: Type.String() })), Type.Null()]),
});
const tags = ['admin: rewards'];
const security = [{ adminBearer: [] }];
const params = Type.Object({ id: Id('Draw id') });

export const drawAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock } = app.deps;
  app.post(
    '/draws',
    {
      schema: {
        tags,
        security,
        summary: 'Create a lucky draw on a LUCKY_DRAW budget; its commitment is public at once',
        body: Type.Object(
          {
            budgetId: Id('Budget id'),
            title: Type.String({ minLength: 1, maxLength: 200 }),
            prizeAmount: Type.String({ minLength: 1, maxLength: 120, description: 'Whole units per winner' }),
            winnersCount: Type.Integer({ minimum: 1, maximum: 100000 }),
            scheduledAt: Instant,
          },
          { additionalProperties: false },
        ),
        response: { 201: Draw, ...errorResponses(400, 401, 403, 404, 422) },
      },
    },
    async (request, reply) => reply.code(201).send(await createDraw(database.db, clock, request.body)),
  );
  app.get(
    '/draws',
    {
      schema: {
        tags,
        security,
        summary: 'List draws',
        querystring: ListQuery,
        response: { 200: Type.Object({ items: Type.Array(Draw) }), ...errorResponses(400, 401) },
      },
    },
    async (request) => ({
      items: await listDraws(database.db, request.query.limit ?? 100, request.query.offset ?? 0),
    }),
  );
  app.get(
    '/draws/:id',
    {
      schema: {
        tags,
        security,
        summary: 'A draw',
        params,
        response: { 200: Draw, ...errorResponses(401, 404) },
      },
    },
    async (request) => getDraw(database.db, request.params.id),
  );
  app.post(
    '/draws/:id/run',
    {
      schema: {
        tags,
        security,
        summary: 'Run a draw now (once)',
        params,
        response: { 200: Draw, ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request) => runDraw(database.db, clock, request.params.id),
  );
};

export const drawPublicRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/draws/:id',
    {
      schema: {
        tags: ['public'],
        summary: 'A lucky draw: commitment before, seed and winners after (no credentials)',
        params,
        response: { 200: Draw, ...errorResponses(404) },
      },
    },
    async (request) => getDraw(app.deps.database.db, request.params.id),
  );
};
