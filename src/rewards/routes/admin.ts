// Operator API for rewards: assets, budgets (with top-up), rewards on missions and groups, claims
// (filters, history, allowed moves), tickets and a platform account's balances.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, Id, ListQuery, sendEmpty } from '../../http/schemas.ts';
import { getMission, getMissionGroup } from '../../catalog/service.ts';
import { getBudgetCaps, setBudgetCaps } from '../../budgets/caps.ts';
import {
  createAsset,
  createBudget,
  getAsset,
  getBudget,
  listAssets,
  listBudgets,
  topUpBudget,
  updateAsset,
} from '../../budgets/service.ts';
import { claimHistory, listClaims, moveClaim } from '../../claims/service.ts';
import { withChainTransactions } from '../../chain/claim-transactions.ts';
import { listStreakRewards, removeRule, setRule, setStreakRewards } from '../../claims/rules.ts';
import { listTickets } from '../../draws/tickets.ts';
import { balancesOf } from '../../payout/ledger.ts';
import { ticketsNotReceived } from '../../me/missions.ts';
import { appError } from '../../errors.ts';

const tags = ['admin: rewards'];
const security = [{ adminBearer: [] }];
const Decimal = (description: string) =>
  Type.String({
    minLength: 1,
    maxLength: 120,
    pattern: '^[0-9]+(\\.[0-9]+)?$',
    description,
    examples: ['100.5'],
  });
const BudgetType = Type.Union([Type.Literal('FIXED'), Type.Literal('LUCKY_DRAW')]);
const ClaimStatus = Type.Union([
  Type.Literal('RESERVED'),
  Type.Literal('REQUESTED'),
  Type.Literal('REJECTED'),
  Type.Literal('SUCCEEDED'),
  Type.Literal('FAILED'),
]);
const Asset = Type.Object({
  id: Type.String(),
  type: Type.Literal('FT'),
  symbol: Type.String(),
  name: Type.String(),
  decimals: Type.Union([Type.Integer(), Type.Null()]),
  createdAt: Type.String(),
});
const Budget = Type.Object({
  id: Type.String(),
  type: BudgetType,
  name: Type.String(),
  assetId: Type.String(),
  assetSymbol: Type.String(),
  decimals: Type.Integer(),
  total: Type.String({ description: 'Whole units, a decimal string' }),
  remaining: Type.String(),
  reserved: Type.String({ description: 'Claims RESERVED, REQUESTED or FAILED' }),
  paid: Type.String({ description: 'Claims SUCCEEDED' }),
  rejected: Type.Integer({ description: 'Claims REJECTED (e.g. the budget was empty)' }),
  createdAt: Type.String(),
});
const Rule = Type.Object({
  id: Type.String(),
  type: BudgetType,
  budgetId: Type.String(),
  amount: Type.Union([Type.String(), Type.Null()]),
});
const RuleBody = Type.Object(
  {
    type: BudgetType,
    budgetId: Id('Budget id'),
    amount: Type.Optional(Decimal('FIXED only: whole units per completion')),
  },
  { additionalProperties: false },
);
const Claim = Type.Object({
  id: Type.String(),
  status: ClaimStatus,
  amount: Type.String(),
  assetSymbol: Type.String(),
  decimals: Type.Integer(),
  reason: Type.Union([Type.String(), Type.Null()]),
  source: Type.String(),
  sourceId: Type.String(),
  periodKey: Type.String(),
  missionKey: Type.Union([Type.String(), Type.Null()], { description: 'MISSION claims: the mission key' }),
  missionTitle: Type.Union([Type.String(), Type.Null()], {
    description: "MISSION claims: the mission's title",
  }),
  partnerId: Type.String(),
  partnerUid: Type.String(),
  accountId: Type.Union([Type.String(), Type.Null()]),
  promotionId: Type.Union([Type.String(), Type.Null()]),
  budgetId: Type.String(),
  attempts: Type.Integer(),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  completedBeforeLink: Type.Union([Type.String(), Type.Null()], {
    description: 'Granted when the user linked: when the completion happened',
  }),
  // [chain payout]
  txHash: Type.Union([Type.String(), Type.Null()], {
    description: 'Paid on a chain: the transaction (mined, or in flight)',
  }),
  explorerUrl: Type.Union([Type.String(), Type.Null()], {
    description: "The transaction on the network's explorer",
  }),
});
const Ticket = Type.Object({
  id: Type.Union([Type.String(), Type.Null()], { description: 'null for NOT_RECEIVED' }),
  status: Type.Union([Type.Literal('NOT_RECEIVED'), Type.Literal('RECEIVED'), Type.Literal('DRAWN')]),
  partnerId: Type.String(),
  partnerUid: Type.String(),
  missionId: Type.String(),
  missionTitle: Type.String(),
  periodKey: Type.String(),
  drawId: Type.Union([Type.String(), Type.Null()]),
  won: Type.Union([Type.Boolean(), Type.Null()]),
  createdAt: Type.Union([Type.String(), Type.Null()]),
});
export const Balance = Type.Object({
  assetId: Type.String(),
  symbol: Type.String(),
  name: Type.String(),
  decimals: Type.Integer(),
  balance: Type.String(),
});
const Paging = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
};
const IdParam = (what: string) => Type.Object({ id: Id(what) });

export const rewardsAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock } = app.deps;
  const db = database.db;

  app.post(
    '/reward-assets',
    {
      schema: {
        tags,
        security,
        summary: 'Create a reward asset (a fungible token)',
        body: Type.Object(
          {
            symbol: Type.String({ minLength: 1, maxLength: 16 }),
            name: Type.String({ minLength: 1, maxLength: 200 }),
            decimals: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 36 }), Type.Null()])),
          },
          { additionalProperties: false },
        ),
        response: { 201: Asset, ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => reply.code(201).send(await createAsset(db, clock, request.body)),
  );
  app.get(
    '/reward-assets',
    {
      schema: {
        tags,
        security,
        summary: 'List reward assets',
        response: { 200: Type.Object({ items: Type.Array(Asset) }), ...errorResponses(401) },
      },
    },
    async () => ({ items: await listAssets(db) }),
  );
  app.get(
    '/reward-assets/:id',
    {
      schema: {
        tags,
        security,
        summary: 'A reward asset',
        params: IdParam('Asset id'),
        response: { 200: Asset, ...errorResponses(401, 404) },
      },
    },
    async (request) => getAsset(db, request.params.id),
  );
  app.patch(
    '/reward-assets/:id',
    {
      schema: {
        tags,
        security,
        summary: 'Rename an asset or set its decimals (once)',
        params: IdParam('Asset id'),
        body: Type.Object(
          {
            name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
            decimals: Type.Optional(Type.Integer({ minimum: 0, maximum: 36 })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Asset, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => updateAsset(db, clock, request.params.id, request.body),
  );

  app.post(
    '/budgets',
    {
      schema: {
        tags,
        security,
        summary: 'Create a budget; total in whole units of the asset',
        body: Type.Object(
          {
            type: BudgetType,
            assetId: Id('Asset id'),
            name: Type.String({ minLength: 1, maxLength: 200 }),
            total: Decimal('Whole units'),
            stripes: Type.Optional(
              Type.Integer({
                minimum: 1,
                maximum: 64,
                description: 'Sub-allotments for concurrent reservations (default 16)',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 201: Budget, ...errorResponses(400, 401, 403, 404, 422) },
      },
    },
    async (request, reply) => reply.code(201).send(await createBudget(db, clock, request.body)),
  );
  app.get(
    '/budgets',
    {
      schema: {
        tags,
        security,
        summary: 'List budgets',
        querystring: ListQuery,
        response: { 200: Type.Object({ items: Type.Array(Budget) }), ...errorResponses(400, 401) },
      },
    },
    async (request) => ({
      items: await listBudgets(db, request.query.limit ?? 100, request.query.offset ?? 0),
    }),
  );
  app.get(
    '/budgets/:id',
    {
      schema: {
        tags,
        security,
        summary: 'A budget: total, remaining, reserved, paid',
        params: IdParam('Budget id'),
        response: { 200: Budget, ...errorResponses(401, 404) },
      },
    },
    async (request) => getBudget(db, request.params.id),
  );
  app.post(
    '/budgets/:id/top-up',
    {
      schema: {
        tags,
        security,
        summary: 'Add to a budget',
        params: IdParam('Budget id'),
        body: Type.Object({ amount: Decimal('Whole units to add') }, { additionalProperties: false }),
        response: { 200: Budget, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => topUpBudget(db, clock, request.params.id, request.body.amount),
  );

  const Caps = Type.Object({
    budgetId: Type.String(),
    perAccountPerDay: Type.Union([Type.String(), Type.Null()], {
      description:
        'Most one platform account may receive from this budget per UTC day (whole units); null: no cap',
    }),
    perPartnerPerDay: Type.Union([Type.String(), Type.Null()], {
      description:
        "Most one partner's users together may take from this budget per UTC day (whole units); null: no cap",
    }),
  });
  app.get(
    '/budgets/:id/caps',
    {
      schema: {
        tags,
        security,
        summary: "A budget's caps per account and per partner per day",
        params: IdParam('Budget id'),
        response: { 200: Caps, ...errorResponses(401, 404, 422) },
      },
    },
    async (request) => getBudgetCaps(db, request.params.id),
  );
  app.put(
    '/budgets/:id/caps',
    {
      schema: {
        tags,
        security,
        summary:
          "Set a budget's caps per account and per partner per day (a completion past a cap gets a REJECTED claim, CAP_REACHED)",
        params: IdParam('Budget id'),
        body: Type.Object(
          {
            perAccountPerDay: Type.Union([Decimal('Whole units'), Type.Null()]),
            perPartnerPerDay: Type.Union([Decimal('Whole units'), Type.Null()]),
          },
          { additionalProperties: false },
        ),
        response: { 200: Caps, ...errorResponses(400, 401, 403, 404, 422) },
      },
    },
    async (request) => setBudgetCaps(db, clock, request.params.id, request.body),
  );

  app.put(
    '/missions/:id/reward',
    {
      schema: {
        tags,
        security,
        summary: "Set a mission's reward",
        params: IdParam('Mission id'),
        body: RuleBody,
        response: { 200: Rule, ...errorResponses(400, 401, 403, 404, 422) },
      },
    },
    async (request) => {
      await getMission(db, request.params.id);
      return setRule(db, clock, { missionId: request.params.id }, request.body);
    },
  );
  app.delete(
    '/missions/:id/reward',
    {
      schema: {
        tags,
        security,
        summary: "Remove a mission's reward",
        params: IdParam('Mission id'),
        response: { 204: Type.Null(), ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await getMission(db, request.params.id);
      await removeRule(db, { missionId: request.params.id });
      return sendEmpty(reply, 204);
    },
  );
  app.put(
    '/mission-groups/:id/reward',
    {
      schema: {
        tags,
        security,
        summary: "Set a mission group's reward (paid when the whole group is completed)",
        params: IdParam('Mission group id'),
        body: RuleBody,
        response: { 200: Rule, ...errorResponses(400, 401, 403, 404, 422) },
      },
    },
    async (request) => {
      await getMissionGroup(db, request.params.id);
      return setRule(db, clock, { groupId: request.params.id }, request.body);
    },
  );
  app.delete(
    '/mission-groups/:id/reward',
    {
      schema: {
        tags,
        security,
        summary: "Remove a group's reward",
        params: IdParam('Mission group id'),
        response: { 204: Type.Null(), ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await getMissionGroup(db, request.params.id);
      await removeRule(db, { groupId: request.params.id });
      return sendEmpty(reply, 204);
    },
  );

  const StreakRewards = Type.Object(
    {
      items: Type.Array(
        Type.Object(
          {
            days: Type.Integer({ minimum: 1, maximum: 3660 }),
            budgetId: Id('FIXED budget id'),
            amount: Decimal('Whole units'),
          },
          { additionalProperties: false },
        ),
        { maxItems: 100 },
      ),
    },
    { additionalProperties: false },
  );
  app.put(
    '/promotions/:id/streak-rewards',
    {
      schema: {
        tags,
        security,
        summary: "Set a DAILY_CHECK promotion's rewards for streak lengths (replaces them)",
        params: IdParam('Promotion id'),
        body: StreakRewards,
        response: { 200: StreakRewards, ...errorResponses(400, 401, 403, 404, 422) },
      },
    },
    async (request) => ({ items: await setStreakRewards(db, request.params.id, request.body.items) }),
  );
  app.get(
    '/promotions/:id/streak-rewards',
    {
      schema: {
        tags,
        security,
        summary: "A DAILY_CHECK promotion's streak rewards",
        params: IdParam('Promotion id'),
        response: { 200: StreakRewards, ...errorResponses(401, 404) },
      },
    },
    async (request) => ({ items: await listStreakRewards(db, request.params.id) }),
  );

  app.get(
    '/claims',
    {
      schema: {
        tags,
        security,
        summary: 'List claims, newest first',
        querystring: Type.Object(
          {
            status: Type.Optional(ClaimStatus),
            partnerId: Type.Optional(Id('Partner id')),
            partnerUid: Type.Optional(Type.String({ maxLength: 256 })),
            promotionId: Type.Optional(Id('Promotion id')),
            budgetId: Type.Optional(Id('Budget id')),
            accountId: Type.Optional(Id('Account id')),
            ...Paging,
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ items: Type.Array(Claim) }), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const { limit, offset, ...filter } = request.query;
      return {
        items: await withChainTransactions(db, await listClaims(db, filter, limit ?? 100, offset ?? 0)),
      };
    },
  );
  app.get(
    '/claims/:id/history',
    {
      schema: {
        tags,
        security,
        summary: "A claim's status changes",
        params: IdParam('Claim id'),
        response: {
          200: Type.Object({
            items: Type.Array(
              Type.Object({
                from: Type.Union([Type.String(), Type.Null()]),
                to: Type.String(),
                reason: Type.Union([Type.String(), Type.Null()]),
                at: Type.String(),
              }),
            ),
          }),
          ...errorResponses(401, 404),
        },
      },
    },
    async (request) => ({ items: await claimHistory(db, request.params.id) }),
  );
  app.post(
    '/claims/:id/reject',
    {
      schema: {
        tags,
        security,
        summary: 'Reject a RESERVED claim; its amount returns to the budget',
        params: IdParam('Claim id'),
        body: Type.Object(
          { reason: Type.String({ minLength: 1, maxLength: 200 }) },
          { additionalProperties: false },
        ),
        response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await moveClaim(db, clock, request.params.id, 'REJECTED', `operator: ${request.body.reason}`);
      return sendEmpty(reply, 204);
    },
  );
  app.post(
    '/claims/:id/retry',
    {
      schema: {
        tags,
        security,
        summary: 'Request the payout of a FAILED claim again',
        params: IdParam('Claim id'),
        response: { 204: Type.Null(), ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await moveClaim(db, clock, request.params.id, 'REQUESTED', 'operator retry');
      return sendEmpty(reply, 204);
    },
  );

  app.get(
    '/tickets',
    {
      schema: {
        tags,
        security,
        summary: 'Lucky-draw tickets by TicketFilter (NOT_RECEIVED needs partnerId and partnerUid)',
        querystring: Type.Object(
          {
            filter: Type.Optional(
              Type.Union([Type.Literal('NOT_RECEIVED'), Type.Literal('RECEIVED'), Type.Literal('DRAWN')]),
            ),
            partnerId: Type.Optional(Id('Partner id')),
            partnerUid: Type.Optional(Type.String({ maxLength: 256 })),
            ...Paging,
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ items: Type.Array(Ticket) }), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const { filter, partnerId, partnerUid } = request.query;
      if (filter === 'NOT_RECEIVED') {
        if (!partnerId || !partnerUid)
          throw appError(
            'VALIDATION_FAILED',
            'filter=NOT_RECEIVED is per user: give partnerId and partnerUid',
            { field: 'querystring.partnerUid' },
          );
        return {
          items: await ticketsNotReceived(
            db,
            [{ partner_id: partnerId, partner_uid: partnerUid }],
            clock.now(),
          ),
        };
      }
      return {
        items: await listTickets(
          db,
          { status: filter, partnerId, partnerUid },
          request.query.limit ?? 100,
          request.query.offset ?? 0,
        ),
      };
    },
  );

  app.get(
    '/accounts/:id/balances',
    {
      schema: {
        tags,
        security,
        summary: "A platform account's balances, from the ledger",
        params: IdParam('Account id'),
        response: { 200: Type.Object({ items: Type.Array(Balance) }), ...errorResponses(401) },
      },
    },
    async (request) => ({ items: await balancesOf(db, request.params.id) }),
  );
};
