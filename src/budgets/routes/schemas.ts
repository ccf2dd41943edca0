// Schemas of the asset and budget operator routes (/admin/v1/reward-assets, /admin/v1/budgets).
import { Type } from 'typebox';
import { Decimal, Id } from '../../http/schemas.ts';

export const tags = ['admin: rewards'];
export const security = [{ adminBearer: [] }];

export { Decimal };
export const BudgetType = Type.Union([Type.Literal('FIXED'), Type.Literal('LUCKY_DRAW')]);
export const Asset = Type.Object({
  id: Type.String(),
  type: Type.Literal('FT'),
  symbol: Type.String(),
  name: Type.String(),
  decimals: Type.Union([Type.Integer(), Type.Null()]),
  createdAt: Type.String(),
});
export const Budget = Type.Object({
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
export const Caps = Type.Object({
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
export const IdParam = (what: string) => Type.Object({ id: Id(what) });
