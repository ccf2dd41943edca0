// Schemas of the asset and budget operator routes (/admin/v1/reward-assets, /admin/v1/budgets).
import { Type } from 'typebox';
import { component, Decimal, EXAMPLE, Id } from '../../http/schemas.ts';

export const tags = ['admin: rewards'];
export const security = [{ adminBearer: [] }];

export { Decimal };
export const BudgetType = Type.Union([Type.Literal('FIXED'), Type.Literal('LUCKY_DRAW')], {
  ...component('BudgetType'),
  description: 'Kind of budget, and of the reward paid from it: a fixed amount or a lucky draw (spec 2.3)',
});
export const AssetType = Type.Union([Type.Literal('FT')], {
  ...component('AssetType'),
  description: 'Kind of asset (spec 2.3): FT, a fungible token',
});
export const AssetChain = Type.Union(
  [
    Type.Object({
      networkId: Type.String(),
      networkName: Type.String(),
      chainId: Type.Integer(),
      tokenAddress: Type.Union([Type.String(), Type.Null()], {
        description: "The token contract (lower case); null when the asset is the network's native coin",
      }),
      explorerUrl: Type.Union([Type.String(), Type.Null()], {
        description:
          "The token's page on the network's explorer: derived from explorerTxUrl when it ends in /tx/{hash}; null otherwise or for a native coin",
      }),
    }),
    Type.Null(),
  ],
  {
    ...component('AssetChain'),
    description:
      'The chain the asset is paid on (added on the chain page: POST /admin/v1/chain-assets); null when it is kept in the ledger only',
  },
);
export const Asset = Type.Object(
  {
    id: Type.String(),
    type: AssetType,
    symbol: Type.String(),
    name: Type.String(),
    decimals: Type.Union([Type.Integer(), Type.Null()], {
      description: 'null until set (1402 NOT_SET_REWARD_ASSET_DECIMALS); fixed once set',
    }),
    createdAt: Type.String(),
    chain: AssetChain,
  },
  {
    ...component('Asset'),
    description: 'A reward asset',
    examples: [
      {
        id: EXAMPLE.assetId,
        type: 'FT',
        symbol: 'PNT',
        name: 'Acme points',
        decimals: 2,
        createdAt: EXAMPLE.instant,
        chain: null,
      },
      {
        id: EXAMPLE.assetId,
        type: 'FT',
        symbol: 'USDT',
        name: 'Tether USD',
        decimals: 6,
        createdAt: EXAMPLE.instant,
        chain: {
          networkId: EXAMPLE.networkId,
          networkName: 'Kaia',
          chainId: 8217,
          tokenAddress: '0xd077a400968890eacc75cdc901f0356c943e4fdb',
          explorerUrl: 'https://kaiascan.io/token/0xd077a400968890eacc75cdc901f0356c943e4fdb',
        },
      },
    ],
  },
);
export const Budget = Type.Object(
  {
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
  },
  {
    ...component('Budget'),
    description: 'A reward budget and its amounts (whole units of its asset, decimal strings)',
    examples: [
      {
        id: EXAMPLE.budgetId,
        type: 'FIXED',
        name: 'Winter missions pool',
        assetId: EXAMPLE.assetId,
        assetSymbol: 'PNT',
        decimals: 2,
        total: '100000',
        remaining: '99350.5',
        reserved: '49.5',
        paid: '600',
        rejected: 0,
        createdAt: EXAMPLE.instant,
      },
    ],
  },
);
export const Caps = Type.Object(
  {
    budgetId: Type.String(),
    perAccountPerDay: Type.Union([Type.String(), Type.Null()], {
      description:
        'Most one platform account may receive from this budget per UTC day (whole units); null: no cap',
    }),
    perPartnerPerDay: Type.Union([Type.String(), Type.Null()], {
      description:
        "Most one partner's users together may take from this budget per UTC day (whole units); null: no cap",
    }),
  },
  {
    ...component('BudgetCaps'),
    examples: [{ budgetId: EXAMPLE.budgetId, perAccountPerDay: '100', perPartnerPerDay: null }],
  },
);
export const IdParam = (what: string) => Type.Object({ id: Id(what) });
