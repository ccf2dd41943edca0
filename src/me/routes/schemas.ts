// Schemas of the signed-in user's routes (/v1/me) and of an account's balances.
import { Type } from 'typebox';

export const tags = ['user'];

export const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) =>
  Type.Union([t, Type.Null()]);
export const ClaimStatus = Type.Union([
  Type.Literal('RESERVED'),
  Type.Literal('REQUESTED'),
  Type.Literal('REJECTED'),
  Type.Literal('SUCCEEDED'),
  Type.Literal('FAILED'),
]);
export const TicketFilter = Type.Union([
  Type.Literal('NOT_RECEIVED'),
  Type.Literal('RECEIVED'),
  Type.Literal('DRAWN'),
]);
export const Balance = Type.Object({
  assetId: Type.String(),
  symbol: Type.String(),
  name: Type.String(),
  decimals: Type.Integer(),
  balance: Type.String(),
});
export const MyMission = Type.Object({
  partnerId: Type.String(),
  partnerName: Type.String(),
  promotionId: Type.String(),
  promotionTitle: Type.String(),
  promotionType: Type.String(),
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
  reward: Nullable(
    Type.Object({ type: Type.String(), amount: Nullable(Type.String()), assetSymbol: Type.String() }),
  ),
  claim: Nullable(
    Type.Object(
      {
        status: Type.String(),
        reason: Nullable(
          Type.String({
            description: 'Why a REJECTED claim was refused: BUDGET_EXHAUSTED, CAP_REACHED or EXPIRED',
          }),
        ),
        grantedOnLink: Type.Boolean({
          description: 'Completed before the account was linked; granted at the link',
        }),
      },
      { description: "This period's claim of the mission's reward, if any" },
    ),
  ),
});
export const MyStreak = Type.Object({
  promotionId: Type.String(),
  promotionTitle: Type.String(),
  current: Type.Integer(),
  best: Type.Integer(),
  lastCheckDate: Nullable(Type.String()),
});
export const MyClaim = Type.Object({
  id: Type.String(),
  status: Type.String(),
  reason: Nullable(Type.String()),
  grantedOnLink: Type.Boolean(),
  amount: Type.String(),
  assetSymbol: Type.String(),
  decimals: Type.Integer(),
  source: Type.String(),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  // [chain payout] the transfer of a claim paid on chain, with its explorer link.
  txHash: Nullable(Type.String()),
  explorerUrl: Nullable(Type.String()),
});
export const MyTicket = Type.Object({
  id: Nullable(Type.String()),
  missionId: Type.String(),
  missionTitle: Type.String(),
  status: Type.String(),
  periodKey: Type.String(),
  drawId: Nullable(Type.String()),
  won: Nullable(Type.Boolean()),
  createdAt: Nullable(Type.String()),
});
