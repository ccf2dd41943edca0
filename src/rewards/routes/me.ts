// End-user API (/v1/me, platform session): missions with progress gauges and streaks, tickets,
// claims and balances of the signed-in account (docs/plans/me-api.md).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../../http/schemas.ts';
import { listClaims } from '../claims.ts';
import { balancesOf } from '../ledger.ts';
import { listTickets, usersOfAccount } from '../tickets.ts';
import { myMissions } from '../views.ts';
import { AmountOut, Balance, ClaimStatus, Nullable, RewardType, TicketFilter } from './schemas.ts';

const tags = ['user'];
const security = [{ userSession: [] }];
const LIMIT = 500;

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
  periodKey: Type.String(),
  target: Nullable(Type.Integer()),
  current: Nullable(Type.Integer()),
  completed: Type.Boolean(),
  completedAt: Nullable(Type.String()),
  reward: Nullable(Type.Object({ type: RewardType, amount: Nullable(AmountOut('FIXED amount')), assetSymbol: Type.String() })),
});
const MyStreak = Type.Object({
  promotionId: Type.String(),
  promotionTitle: Type.String(),
  current: Type.Integer({ description: '0 once a day was missed' }),
  best: Type.Integer(),
  lastCheckDate: Nullable(Type.String()),
});
const MyTicket = Type.Object({
  id: Nullable(Type.String()),
  missionId: Nullable(Type.String()),
  missionTitle: Type.String(),
  status: TicketFilter,
  drawId: Nullable(Type.String()),
  won: Nullable(Type.Boolean()),
  createdAt: Nullable(Type.String()),
});
const MyClaim = Type.Object({
  id: Type.String(),
  status: ClaimStatus,
  amount: AmountOut('Amount'),
  assetSymbol: Type.String(),
  decimals: Type.Integer(),
  source: Type.String({ description: 'MISSION, GROUP, STREAK or DRAW' }),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

export const rewardsMeRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock } = app.deps;
  const db = database.db;

  app.get(
    '/missions',
    {
      schema: {
        tags,
        security,
        summary: 'My missions (current period, progress gauge, reward) and check-in streaks',
        response: { 200: Type.Object({ items: Type.Array(MyMission), streaks: Type.Array(MyStreak) }), ...errorResponses(401) },
      },
    },
    async (request) => myMissions(db, clock, request.account.id),
  );

  app.get(
    '/tickets',
    {
      schema: {
        tags,
        security,
        summary: 'My lucky-draw tickets: NOT_RECEIVED, RECEIVED or DRAWN (all issued ones without a filter)',
        querystring: Type.Object({ filter: Type.Optional(TicketFilter) }, { additionalProperties: false }),
        response: { 200: Type.Object({ items: Type.Array(MyTicket) }), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const users = await usersOfAccount(db, request.account.id);
      const items = await listTickets(db, clock, {
        ...(request.query.filter !== undefined && { filter: request.query.filter }),
        users,
        limit: LIMIT,
        offset: 0,
      });
      return {
        items: items.map(({ id, missionId, missionTitle, status, drawId, won, createdAt }) => ({ id, missionId, missionTitle, status, drawId, won, createdAt })),
      };
    },
  );

  app.get(
    '/claims',
    {
      schema: {
        tags,
        security,
        summary: 'My reward claims, newest first',
        querystring: Type.Object({ status: Type.Optional(ClaimStatus) }, { additionalProperties: false }),
        response: { 200: Type.Object({ items: Type.Array(MyClaim) }), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const items = await listClaims(
        db,
        { accountId: request.account.id, ...(request.query.status !== undefined && { status: request.query.status }) },
        { limit: LIMIT, offset: 0 },
      );
      return {
        items: items.map(({ id, status, amount, assetSymbol, decimals, source, createdAt, updatedAt }) => ({ id, status, amount, assetSymbol, decimals, source, createdAt, updatedAt })),
      };
    },
  );

  app.get(
    '/balances',
    {
      schema: { tags, security, summary: 'My balances per asset, from the ledger', response: { 200: Type.Object({ items: Type.Array(Balance) }), ...errorResponses(401) } },
    },
    async (request) => ({ items: await balancesOf(db, request.account.id) }),
  );
};
