// Public draw results (/v1/draws, no credentials): the commitment before a draw, the seed, the
// entries and the winners after it, so that anyone can check a draw (docs/rewards.md).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../../http/schemas.ts';
import { drawEntries, getPublicDraw } from '../draws.ts';
import { AmountOut, DrawStatus, IdParams, Nullable } from './schemas.ts';

const tags = ['public: draws'];
const Params = IdParams('drawId', 'Draw id');

export const rewardsPublicRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock } = app.deps;
  const db = database.db;

  app.get(
    '/draws/:drawId',
    {
      schema: {
        tags,
        summary: 'A draw: its commitment, and once drawn its seed and winning tickets',
        params: Params,
        response: {
          200: Type.Object({
            id: Type.String(),
            title: Type.String(),
            status: DrawStatus,
            scheduledAt: Type.String(),
            commitment: Type.String(),
            seed: Nullable(Type.String()),
            prizeAmount: AmountOut('Prize per winner'),
            assetSymbol: Type.String(),
            winnersCount: Type.Integer(),
            ticketCount: Nullable(Type.Integer()),
            winners: Nullable(Type.Array(Type.Object({ ticketId: Type.String() }))),
          }),
          ...errorResponses(404),
        },
      },
    },
    async (request) => getPublicDraw(db, clock, request.params.drawId),
  );

  app.get(
    '/draws/:drawId/entries',
    {
      schema: {
        tags,
        summary: 'Everything to recompute a drawn draw: the seed and all entries (ticket ids, sorted)',
        params: Params,
        response: {
          200: Type.Object({
            drawId: Type.String(),
            commitment: Type.String(),
            seed: Type.String(),
            winnersCount: Type.Integer(),
            ticketIds: Type.Array(Type.String()),
            winners: Type.Array(Type.String(), { description: 'Best first: lowest SHA-256(seed + ":" + ticketId)' }),
          }),
          ...errorResponses(404, 409),
        },
      },
    },
    async (request) => drawEntries(db, clock, request.params.drawId),
  );
};
