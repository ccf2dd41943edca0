// GET /v1/me/missions: the signed-in user's missions with gauges, rewards and streaks.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../../http/schemas.ts';
import { missionsOfAccount } from '../mission-page.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

const MyMission = Type.Object({
  partnerId: Type.String(),
  partnerName: Type.String(),
  promotionId: Type.String(),
  promotionTitle: Type.String(),
  promotionType: Type.Union([Type.Literal('COMPOSITE'), Type.Literal('DAILY_CHECK')]),
  missionGroupId: Type.String(),
  groupTitle: Type.String(),
  missionId: Type.String(),
  missionKey: Type.String(),
  title: Type.String(),
  recurrence: Type.String(),
  periodKey: Type.String({ description: 'The current period in the promotion time zone' }),
  target: Nullable(Type.Integer()),
  current: Nullable(Type.Integer()),
  completed: Type.Boolean(),
  completedAt: Nullable(Type.String()),
  reward: Nullable(
    Type.Object({
      type: Type.Union([Type.Literal('FIXED'), Type.Literal('LUCKY_DRAW')]),
      amount: Nullable(Type.String({ description: 'Whole units, a decimal string; null for a lucky draw' })),
      assetSymbol: Type.String(),
    }),
  ),
});

const MyStreak = Type.Object({
  promotionId: Type.String(),
  promotionTitle: Type.String(),
  current: Type.Integer({ description: 'Consecutive check-in days up to today (or yesterday)' }),
  best: Type.Integer(),
  lastCheckDate: Nullable(Type.String()),
});

export const myMissionsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock } = app.deps;
  app.get(
    '/missions',
    {
      schema: {
        tags: ['user'],
        summary: 'My missions: the current period of each mission of my partners’ active promotions, and my streaks',
        response: { 200: Type.Object({ items: Type.Array(MyMission), streaks: Type.Array(MyStreak) }), ...errorResponses(401) },
      },
    },
    async (request) => missionsOfAccount(database.db, clock, request.account.id),
  );
};
