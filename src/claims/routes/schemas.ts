// Schemas of the reward-rule and claim operator routes.
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { DB } from '../../db/schema.ts';
import { component, Decimal, EXAMPLE, Id } from '../../http/schemas.ts';
import { BudgetType } from '../../budgets/routes/schemas.ts';

export const tags = ['admin: rewards'];
export const security = [{ adminBearer: [] }];

export const ClaimStatus = Type.Union(
  [
    Type.Literal('RESERVED'),
    Type.Literal('REQUESTED'),
    Type.Literal('REJECTED'),
    Type.Literal('SUCCEEDED'),
    Type.Literal('FAILED'),
  ],
  { ...component('ClaimStatus'), description: 'Status of a reward claim (spec 2.3)' },
);
export const Rule = Type.Object(
  {
    id: Type.String(),
    type: BudgetType,
    budgetId: Type.String(),
    amount: Type.Union([Type.String(), Type.Null()]),
  },
  {
    ...component('Reward'),
    description: 'The reward of a mission or a mission group, paid from a budget of the same type',
    examples: [{ id: EXAMPLE.rewardId, type: 'FIXED', budgetId: EXAMPLE.budgetId, amount: '50' }],
  },
);
export const RuleBody = Type.Object(
  {
    type: BudgetType,
    budgetId: Id('Budget id'),
    amount: Type.Optional(Decimal('FIXED only: whole units per completion')),
  },
  {
    ...component('RewardRequest'),
    additionalProperties: false,
    examples: [
      { type: 'FIXED', budgetId: EXAMPLE.budgetId, amount: '50' },
      { type: 'LUCKY_DRAW', budgetId: EXAMPLE.budgetId },
    ],
  },
);
export const StreakRewards = Type.Object(
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
  {
    ...component('StreakRewards'),
    additionalProperties: false,
    description: 'The rewards of a DAILY_CHECK promotion for streaks of so many days',
    examples: [
      {
        items: [
          { days: 7, budgetId: EXAMPLE.budgetId, amount: '100' },
          { days: 30, budgetId: EXAMPLE.budgetId, amount: '500' },
        ],
      },
    ],
  },
);
export const Claim = Type.Object(
  {
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
    waitsForWallet: Type.Boolean({
      description: 'REQUESTED on a chain, and its user has bound no wallet there: paid once they bind one',
    }),
  },
  {
    ...component('Claim'),
    description: 'A reward claim: a reservation on a budget and its payout',
    examples: [
      {
        id: EXAMPLE.claimId,
        status: 'SUCCEEDED',
        amount: '50',
        assetSymbol: 'PNT',
        decimals: 2,
        reason: null,
        source: 'MISSION',
        sourceId: EXAMPLE.missionId,
        periodKey: '2026-11-24',
        missionKey: EXAMPLE.missionKey,
        missionTitle: 'Log in every day',
        partnerId: EXAMPLE.partnerId,
        partnerUid: EXAMPLE.partnerUid,
        accountId: EXAMPLE.accountId,
        promotionId: EXAMPLE.promotionId,
        budgetId: EXAMPLE.budgetId,
        attempts: 1,
        createdAt: EXAMPLE.instant,
        updatedAt: EXAMPLE.later,
        completedBeforeLink: null,
        txHash: null,
        explorerUrl: null,
        waitsForWallet: false,
      },
    ],
  },
);
export const IdParam = (what: string) => Type.Object({ id: Id(what) });

/**
 * Adds each claim's chain transaction (txHash, explorerUrl). The claims capability stays unaware of
 * chains: the composition root passes chain/claim-transactions.ts withChainTransactions in.
 */
export type WithChainTransactions = <T extends { id: string }>(
  db: Kysely<DB>,
  items: readonly T[],
) => Promise<Array<T & { txHash: string | null; explorerUrl: string | null; waitsForWallet: boolean }>>;
