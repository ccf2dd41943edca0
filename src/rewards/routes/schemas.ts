// Schemas shared by the reward routes. Amounts are decimal strings in whole units of the asset,
// never JSON numbers: a float cannot carry 18 or 36 decimals.
import { Type } from 'typebox';
import { Id } from '../../http/schemas.ts';

export const tags = {
  assets: ['admin: reward assets'],
  budgets: ['admin: budgets'],
  rewards: ['admin: mission rewards'],
  claims: ['admin: claims'],
  tickets: ['admin: tickets'],
  draws: ['admin: draws'],
  ledger: ['admin: ledger'],
};
export const security = [{ adminBearer: [] }];

export const Decimal = (description: string) =>
  Type.String({ minLength: 1, maxLength: 120, pattern: '^[0-9]+(\\.[0-9]+)?$', description, examples: ['12.5'] });
export const AmountOut = (description: string) => Type.String({ description: `${description}; a decimal string in whole units`, examples: ['12.5'] });

export const RewardType = Type.Union([Type.Literal('FIXED'), Type.Literal('LUCKY_DRAW')]);
export const ClaimStatus = Type.Union([
  Type.Literal('RESERVED'),
  Type.Literal('REQUESTED'),
  Type.Literal('REJECTED'),
  Type.Literal('SUCCEEDED'),
  Type.Literal('FAILED'),
]);
export const ClaimSource = Type.Union([Type.Literal('MISSION'), Type.Literal('GROUP'), Type.Literal('STREAK'), Type.Literal('DRAW')]);
export const TicketFilter = Type.Union([Type.Literal('NOT_RECEIVED'), Type.Literal('RECEIVED'), Type.Literal('DRAWN')]);
export const DrawStatus = Type.Union([Type.Literal('SCHEDULED'), Type.Literal('COMMITTED'), Type.Literal('DRAWN')]);
export const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const Paging = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 })),
};
export const page = (query: { limit?: number; offset?: number }) => ({ limit: query.limit ?? 100, offset: query.offset ?? 0 });

export const IdParams = <K extends string>(name: K, description: string) =>
  Type.Object({ [name]: Id(description) } as { [P in K]: ReturnType<typeof Id> });

export const Balance = Type.Object({
  assetId: Type.String(),
  symbol: Type.String(),
  name: Type.String(),
  decimals: Type.Integer(),
  balance: AmountOut('Sum of the ledger entries of this account'),
});

export const Claim = Type.Object({
  id: Type.String(),
  status: ClaimStatus,
  amount: AmountOut('Amount'),
  assetId: Type.String(),
  assetSymbol: Type.String(),
  decimals: Type.Integer(),
  reason: Nullable(Type.String({ description: 'Why it was rejected or failed (BUDGET_EXHAUSTED, RESERVATION_EXPIRED, operator: ...)' })),
  source: ClaimSource,
  sourceId: Type.String({ description: 'Mission, mission group, streak reward or draw id' }),
  periodKey: Type.String({ description: 'Period of the mission or group, day of the streak, or ticket id of a draw prize' }),
  partnerId: Type.String(),
  partnerUid: Type.String(),
  accountId: Nullable(Type.String()),
  promotionId: Nullable(Type.String()),
  budgetId: Type.String(),
  attempts: Type.Integer({ description: 'Payout attempts that failed' }),
  nextAttemptAt: Nullable(Type.String()),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

export const Ticket = Type.Object({
  id: Nullable(Type.String({ description: 'null for NOT_RECEIVED' })),
  status: TicketFilter,
  partnerId: Type.String(),
  partnerUid: Type.String(),
  missionId: Nullable(Type.String({ description: 'null for a mission group ticket' })),
  missionTitle: Type.String(),
  missionGroupId: Nullable(Type.String()),
  periodKey: Type.String(),
  budgetId: Type.String(),
  drawId: Nullable(Type.String()),
  won: Nullable(Type.Boolean()),
  createdAt: Nullable(Type.String()),
});
