// Schemas of the reward-rule and claim operator routes.
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { DB } from '../../db/schema.ts';
import { Decimal, Id } from '../../http/schemas.ts';
import { BudgetType } from '../../budgets/routes/schemas.ts';

export const tags = ['admin: rewards'];
export const security = [{ adminBearer: [] }];

export const ClaimStatus = Type.Union([
  Type.Literal('RESERVED'),
  Type.Literal('REQUESTED'),
  Type.Literal('REJECTED'),
  Type.Literal('SUCCEEDED'),
  Type.Literal('FAILED'),
]);
export const Rule = Type.Object({
  id: Type.String(),
  type: BudgetType,
  budgetId: Type.String(),
  amount: Type.Union([Type.String(), Type.Null()]),
});
export const RuleBody = Type.Object(
  {
    type: BudgetType,
    budgetId: Id('Budget id'),
    amount: Type.Optional(Decimal('FIXED only: whole units per completion')),
  },
  { additionalProperties: false },
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
  { additionalProperties: false },
);
export const Claim = Type.Object({
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
export const IdParam = (what: string) => Type.Object({ id: Id(what) });

/**
 * Adds each claim's chain transaction (txHash, explorerUrl). The claims capability stays unaware of
 * chains: the composition root passes chain/claim-transactions.ts withChainTransactions in.
 */
export type WithChainTransactions = <T extends { id: string }>(
  db: Kysely<DB>,
  items: readonly T[],
) => Promise<Array<T & { txHash: string | null; explorerUrl: string | null }>>;
