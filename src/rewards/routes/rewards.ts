// Operator API: the reward of a mission, of a mission group (COMPOSITE promotions), and the streak
// rewards of a DAILY_CHECK promotion.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, Id, sendEmpty } from '../../http/schemas.ts';
import { getRule, listStreakRewards, removeRule, removeStreakReward, setRule, setStreakReward } from '../service.ts';
import type { RuleTarget } from '../service.ts';
import { AmountOut, Decimal, IdParams, Nullable, RewardType, security, tags } from './schemas.ts';

const Rule = Type.Object({
  id: Type.String(),
  target: Type.Union([Type.Literal('MISSION'), Type.Literal('GROUP')]),
  targetId: Type.String(),
  type: RewardType,
  budgetId: Type.String(),
  amount: Nullable(AmountOut('FIXED: paid per completion')),
  assetSymbol: Type.String(),
  createdAt: Type.String(),
});
const RuleBody = Type.Object(
  { type: RewardType, budgetId: Id('Budget id (of the same type)'), amount: Type.Optional(Decimal('FIXED only: whole units per completion')) },
  { additionalProperties: false },
);
const StreakReward = Type.Object({
  id: Type.String(),
  promotionId: Type.String(),
  days: Type.Integer(),
  type: Type.Literal('FIXED'),
  budgetId: Type.String(),
  amount: AmountOut('Paid when a streak reaches `days`'),
  assetSymbol: Type.String(),
  createdAt: Type.String(),
});
const StreakParams = Type.Object({ promotionId: Id('Promotion id'), days: Type.Integer({ minimum: 1, maximum: 3660, description: 'Streak length in days' }) });

export const rewardRuleRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock } = app.deps;
  const db = database.db;
  const t = tags.rewards;

  const targets: Array<{ path: string; param: string; what: string; target: (id: string) => RuleTarget }> = [
    { path: '/missions/:missionId/reward', param: 'missionId', what: 'mission', target: (id) => ({ missionId: id }) },
    { path: '/mission-groups/:groupId/reward', param: 'groupId', what: 'mission group', target: (id) => ({ groupId: id }) },
  ];
  for (const { path, param, what, target } of targets) {
    const params = IdParams(param, `The ${what}'s id`);
    const idOf = (p: unknown) => (p as Record<string, string>)[param] as string;
    app.put(
      path,
      {
        schema: {
          tags: t,
          security,
          summary: `Set the ${what}'s reward: {type: FIXED, budgetId, amount} or {type: LUCKY_DRAW, budgetId}`,
          description: what === 'mission group' ? 'Paid when the last mission of the group completes in the period; COMPOSITE promotions only.' : undefined,
          params,
          body: RuleBody,
          response: { 200: Rule, ...errorResponses(400, 401, 403, 404, 409, 422) },
        },
      },
      async (request) => setRule(db, clock, target(idOf(request.params)), request.body),
    );
    app.get(
      path,
      { schema: { tags: t, security, summary: `The ${what}'s reward`, params, response: { 200: Rule, ...errorResponses(401, 404) } } },
      async (request) => getRule(db, target(idOf(request.params))),
    );
    app.delete(
      path,
      { schema: { tags: t, security, summary: `Remove the ${what}'s reward`, params, response: { 204: Type.Null(), ...errorResponses(401, 403, 404) } } },
      async (request, reply) => {
        await removeRule(db, target(idOf(request.params)));
        return sendEmpty(reply, 204);
      },
    );
  }

  app.get(
    '/promotions/:promotionId/streak-rewards',
    {
      schema: {
        tags: t,
        security,
        summary: 'Streak rewards of a DAILY_CHECK promotion',
        params: IdParams('promotionId', 'Promotion id'),
        response: { 200: Type.Object({ items: Type.Array(StreakReward) }), ...errorResponses(401, 404, 409) },
      },
    },
    async (request) => ({ items: await listStreakRewards(db, request.params.promotionId) }),
  );

  app.put(
    '/promotions/:promotionId/streak-rewards/:days',
    {
      schema: {
        tags: t,
        security,
        summary: 'Pay a FIXED amount whenever a user reaches a streak of `days` consecutive check-in days',
        params: StreakParams,
        body: Type.Object({ type: Type.Optional(Type.Literal('FIXED')), budgetId: Id('FIXED budget id'), amount: Decimal('Whole units') }, { additionalProperties: false }),
        response: { 200: StreakReward, ...errorResponses(400, 401, 403, 404, 409, 422) },
      },
    },
    async (request) => setStreakReward(db, clock, request.params.promotionId, request.params.days, request.body),
  );

  app.delete(
    '/promotions/:promotionId/streak-rewards/:days',
    {
      schema: { tags: t, security, summary: 'Remove a streak reward', params: StreakParams, response: { 204: Type.Null(), ...errorResponses(401, 403, 404, 409) } },
    },
    async (request, reply) => {
      await removeStreakReward(db, request.params.promotionId, request.params.days);
      return sendEmpty(reply, 204);
    },
  );
};
