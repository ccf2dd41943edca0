// GET /admin/v1/waiting-rewards: rewards earned but not on their way (#29 "the claim that waits"):
// completions of users who have not linked (deferred rewards) and chain claims whose user has bound
// no wallet, with how many of each match. The console's claims page, user page and dashboard read it.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { component, errorResponses, EXAMPLE, Id, Paging } from '../../http/schemas.ts';
import { listWaitingRewards } from '../waiting-rewards.ts';

const Kind = Type.Union([Type.Literal('UNLINKED'), Type.Literal('NO_WALLET')], {
  description:
    'UNLINKED: the partner user has not linked (granted when they link); NO_WALLET: a chain claim whose user has bound no wallet on its chain (paid once they bind one)',
});

const WaitingReward = Type.Object(
  {
    kind: Kind,
    claimId: Type.Union([Type.String(), Type.Null()], { description: 'null: no claim before the link' }),
    reward: Type.Union([Type.Literal('CLAIM'), Type.Literal('TICKET')]),
    partnerId: Type.String(),
    partnerUid: Type.String(),
    accountId: Type.Union([Type.String(), Type.Null()]),
    source: Type.Union([
      Type.Literal('MISSION'),
      Type.Literal('GROUP'),
      Type.Literal('DRAW'),
      Type.Literal('STREAK'),
    ]),
    sourceId: Type.String(),
    missionKey: Type.Union([Type.String(), Type.Null()]),
    periodKey: Type.String(),
    budgetId: Type.String(),
    amount: Type.Union([Type.String(), Type.Null()], { description: 'Decimal string; null for a ticket' }),
    assetSymbol: Type.String(),
    decimals: Type.Integer(),
    since: Type.String({ description: 'When it was earned' }),
    unpaidAfter: Type.Union([Type.String(), Type.Null()], {
      description: 'UNLINKED: a link after this instant no longer pays it (CLAIM_RESERVATION_TTL_SECONDS)',
    }),
  },
  {
    ...component('WaitingReward'),
    examples: [
      {
        kind: 'NO_WALLET',
        claimId: EXAMPLE.claimId,
        reward: 'CLAIM',
        partnerId: EXAMPLE.partnerId,
        partnerUid: 'user-3',
        accountId: EXAMPLE.accountId,
        source: 'MISSION',
        sourceId: 'msn_T6pL2xQ9vNc4mKw8rYb1sA',
        missionKey: 'daily-login',
        periodKey: '2026-11-26',
        budgetId: 'bdg_Q2w8Lk3vN7cX1mRt9yPe4A',
        amount: '2.5',
        assetSymbol: 'DEVT',
        decimals: 18,
        since: EXAMPLE.instant,
        unpaidAfter: null,
      },
    ],
  },
);

export const listWaitingRewardsRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database, config } = app.deps;
  app.get(
    '/waiting-rewards',
    {
      schema: {
        operationId: 'listWaitingRewards',
        tags: ['admin: rewards'],
        security: [{ adminBearer: [] }],
        summary: 'Rewards that wait: for their user to link, or for a wallet to pay a chain claim to',
        querystring: Type.Object(
          {
            kind: Type.Optional(Kind),
            partnerId: Type.Optional(Id('Partner id')),
            partnerUid: Type.Optional(Type.String({ maxLength: 256 })),
            accountId: Type.Optional(Id('Account id')),
            ...Paging,
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            items: Type.Array(WaitingReward),
            counts: Type.Object(
              { UNLINKED: Type.Integer(), NO_WALLET: Type.Integer() },
              { description: 'How many of each kind match the filter (all pages)' },
            ),
          }),
          ...errorResponses(),
        },
      },
    },
    async (request) => {
      const { limit, offset, ...filter } = request.query;
      return listWaitingRewards(database.db, filter, {
        limit: limit ?? 100,
        offset: offset ?? 0,
        reservationTtlSeconds: config.claimReservationTtlSeconds,
      });
    },
  );
};
