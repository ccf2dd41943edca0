// Operator API: lucky draws (commit/reveal seed; docs/rewards.md).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, Id, Instant } from '../../http/schemas.ts';
import { createDraw, getDraw, listDraws, runDraw } from '../draws.ts';
import { AmountOut, Decimal, DrawStatus, IdParams, Nullable, page, Paging, security, tags } from './schemas.ts';

const Draw = Type.Object({
  id: Type.String(),
  title: Type.String(),
  budgetId: Type.String(),
  missionId: Nullable(Type.String()),
  status: DrawStatus,
  scheduledAt: Type.String(),
  commitment: Type.String({ description: 'SHA-256 (hex) of the seed, published from creation' }),
  seed: Nullable(Type.String({ description: 'The secret seed, revealed once the draw has run' })),
  prizeAmount: AmountOut('Prize per winner'),
  assetSymbol: Type.String(),
  decimals: Type.Integer(),
  winnersCount: Type.Integer(),
  ticketCount: Nullable(Type.Integer()),
  winners: Nullable(
    Type.Array(
      Type.Object({ ticketId: Type.String(), partnerId: Type.String(), partnerUid: Type.String(), claimId: Nullable(Type.String()), claimStatus: Nullable(Type.String()) }),
    ),
  ),
  createdAt: Type.String(),
  drawnAt: Nullable(Type.String()),
});
const Params = IdParams('drawId', 'Draw id');

export const drawRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock } = app.deps;
  const db = database.db;
  const t = tags.draws;

  app.post(
    '/draws',
    {
      schema: {
        tags: t,
        security,
        summary: 'Schedule a draw among the RECEIVED tickets of a LUCKY_DRAW budget (or of one of its missions)',
        description: 'The commitment (SHA-256 of a secret seed) is published at once; entries close at scheduledAt.',
        body: Type.Object(
          {
            budgetId: Id('LUCKY_DRAW budget id'),
            missionId: Type.Optional(Nullable(Id('Only the tickets of this mission'))),
            title: Type.String({ minLength: 1, maxLength: 200 }),
            prizeAmount: Decimal('Whole units per winner'),
            winnersCount: Type.Integer({ minimum: 1, maximum: 100_000 }),
            scheduledAt: { ...Instant, description: 'When entries close and the draw runs; in the future' },
          },
          { additionalProperties: false },
        ),
        response: { 201: Draw, ...errorResponses(400, 401, 403, 404, 422) },
      },
    },
    async (request, reply) => reply.code(201).send(await createDraw(db, clock, request.body)),
  );

  app.get(
    '/draws',
    {
      schema: {
        tags: t,
        security,
        summary: 'List draws, latest first',
        querystring: Type.Object({ budgetId: Type.Optional(Id('Budget id')), status: Type.Optional(DrawStatus), ...Paging }, { additionalProperties: false }),
        response: { 200: Type.Object({ items: Type.Array(Draw) }), ...errorResponses(400, 401) },
      },
    },
    async (request) => ({
      items: await listDraws(db, clock, {
        ...(request.query.budgetId !== undefined && { budgetId: request.query.budgetId }),
        ...(request.query.status !== undefined && { status: request.query.status }),
        ...page(request.query),
      }),
    }),
  );

  app.get(
    '/draws/:drawId',
    { schema: { tags: t, security, summary: 'Get a draw', params: Params, response: { 200: Draw, ...errorResponses(401, 404) } } },
    async (request) => getDraw(db, clock, request.params.drawId),
  );

  app.post(
    '/draws/:drawId/run',
    {
      schema: {
        tags: t,
        security,
        summary: 'Run a due draw now (the worker also runs it at its time)',
        params: Params,
        response: { 200: Draw, ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request) => runDraw(db, clock, request.params.drawId),
  );
};
