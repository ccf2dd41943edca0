// The chain operator routes' shared schemas: the network, chain asset, reward wallet, payout and
// reconciliation components, the tag and the admin security scheme.
import { Type } from 'typebox';
import { component, EXAMPLE } from '../../http/schemas.ts';

export const tags = ['admin: chain'];
export const security = [{ adminBearer: [] }];
export const Address = Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', description: 'An EVM address' });
export const Network = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    chainId: Type.Integer(),
    rpcUrl: Type.String(),
    rpcUrls: Type.Array(Type.String(), { description: 'rpcUrl and its fallbacks, tried in this order' }),
    confirmations: Type.Integer(),
    explorerTxUrl: Type.Union([Type.String(), Type.Null()]),
    enabled: Type.Boolean({ description: 'False while disabled: nothing is signed or sent on it' }),
    createdAt: Type.String(),
  },
  {
    ...component('ChainNetwork'),
    description: 'An EVM network rewards can be paid on',
    examples: [
      {
        id: EXAMPLE.networkId,
        name: 'Sepolia',
        chainId: 11155111,
        rpcUrl: 'https://rpc.sepolia.example',
        rpcUrls: ['https://rpc.sepolia.example'],
        confirmations: 3,
        explorerTxUrl: 'https://sepolia.etherscan.io/tx/{hash}',
        enabled: true,
        createdAt: EXAMPLE.instant,
      },
    ],
  },
);
export const ChainAsset = Type.Object(
  {
    id: Type.String(),
    symbol: Type.String(),
    name: Type.String(),
    decimals: Type.Union([Type.Integer(), Type.Null()]),
    networkId: Type.String(),
    tokenAddress: Type.Union([Type.String(), Type.Null()]),
  },
  {
    ...component('ChainAsset'),
    description: 'A reward asset paid on a chain: a token contract, or the native coin (tokenAddress null)',
    examples: [
      {
        id: EXAMPLE.assetId,
        symbol: 'USDC',
        name: 'USD Coin (Sepolia)',
        decimals: 6,
        networkId: EXAMPLE.networkId,
        tokenAddress: '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238',
      },
    ],
  },
);
export const Wallet = Type.Object(
  {
    id: Type.String(),
    budgetId: Type.String(),
    networkId: Type.String(),
    address: Type.String(),
    keyOrigin: Type.Union([Type.Literal('CREATED'), Type.Literal('IMPORTED')], component('WalletKeyOrigin')),
    createdAt: Type.String(),
  },
  {
    ...component('RewardWallet'),
    description: "A budget's reward wallet",
    examples: [
      {
        id: EXAMPLE.walletId,
        budgetId: EXAMPLE.budgetId,
        networkId: EXAMPLE.networkId,
        address: EXAMPLE.wallet,
        keyOrigin: 'CREATED',
        createdAt: EXAMPLE.instant,
      },
    ],
  },
);
export const WalletBalances = Type.Object(
  {
    ...Wallet.properties,
    symbol: Type.String(),
    decimals: Type.Union([Type.Integer(), Type.Null()]),
    tokenAddress: Type.Union([Type.String(), Type.Null()]),
    tokenBalance: Type.Union([Type.String(), Type.Null()], { description: 'Whole units on chain' }),
    gasBalanceWei: Type.Union([Type.String(), Type.Null()]),
    owed: Type.String({ description: 'Whole units of claims not yet paid' }),
    warning: Type.Union([Type.String(), Type.Null()]),
  },
  {
    ...component('RewardWalletBalances'),
    description: "A budget's reward wallet with its balances on chain and what it owes",
    examples: [
      {
        id: EXAMPLE.walletId,
        budgetId: EXAMPLE.budgetId,
        networkId: EXAMPLE.networkId,
        address: EXAMPLE.wallet,
        keyOrigin: 'CREATED',
        createdAt: EXAMPLE.instant,
        symbol: 'USDC',
        decimals: 6,
        tokenAddress: '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238',
        tokenBalance: '1250.5',
        gasBalanceWei: '48000000000000000',
        owed: '75',
        warning: null,
      },
    ],
  },
);
export const PayoutStatus = Type.Union(
  [
    Type.Literal('SIGNED'),
    Type.Literal('BROADCAST'),
    Type.Literal('CONFIRMED'),
    Type.Literal('REVERTED'),
    Type.Literal('FAILED'),
  ],
  component('ChainPayoutStatus'),
);
export const ChainPayout = Type.Object(
  {
    id: Type.String(),
    claimId: Type.String(),
    budgetId: Type.String(),
    walletId: Type.String(),
    networkId: Type.String(),
    networkName: Type.String(),
    status: PayoutStatus,
    nonce: Type.Integer(),
    to: Type.String(),
    amount: Type.String({ description: 'Base units' }),
    tokenAddress: Type.Union([Type.String(), Type.Null()]),
    txHash: Type.String(),
    explorerUrl: Type.Union([Type.String(), Type.Null()]),
    blockNumber: Type.Union([Type.Integer(), Type.Null()]),
    broadcasts: Type.Integer(),
    replacements: Type.Integer(),
    lastError: Type.Union([Type.String(), Type.Null()]),
    signedAt: Type.String(),
    settledAt: Type.Union([Type.String(), Type.Null()]),
    transactions: Type.Array(
      Type.Object({
        txHash: Type.String(),
        status: Type.String(),
        signedAt: Type.String(),
        explorerUrl: Type.Union([Type.String(), Type.Null()]),
      }),
    ),
  },
  {
    ...component('ChainPayout'),
    description: 'A chain payout of the outbox and every transaction signed for it',
    examples: [
      {
        id: 'cpo_8Jf2kQ0pXc1rT5vW9yZ3aB',
        claimId: 'clm_8Jf2kQ0pXc1rT5vW9yZ3aB',
        budgetId: EXAMPLE.budgetId,
        walletId: EXAMPLE.walletId,
        networkId: EXAMPLE.networkId,
        networkName: 'Sepolia',
        status: 'CONFIRMED',
        nonce: 7,
        to: EXAMPLE.wallet,
        amount: '1500000',
        tokenAddress: '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238',
        txHash: `0x${'ab'.repeat(32)}`,
        explorerUrl: `https://sepolia.etherscan.io/tx/0x${'ab'.repeat(32)}`,
        blockNumber: 123456,
        broadcasts: 1,
        replacements: 0,
        lastError: null,
        signedAt: EXAMPLE.instant,
        settledAt: EXAMPLE.instant,
        transactions: [
          {
            txHash: `0x${'ab'.repeat(32)}`,
            status: 'MINED',
            signedAt: EXAMPLE.instant,
            explorerUrl: `https://sepolia.etherscan.io/tx/0x${'ab'.repeat(32)}`,
          },
        ],
      },
    ],
  },
);
export const Difference = Type.Object({
  kind: Type.String(),
  txHash: Type.Union([Type.String(), Type.Null()]),
  claimId: Type.Union([Type.String(), Type.Null()]),
  detail: Type.String(),
});
export const Reconciliation = Type.Object(
  {
    walletId: Type.String(),
    budgetId: Type.String(),
    address: Type.String(),
    confirmedPayouts: Type.Integer(),
    transfersOnChain: Type.Integer(),
    differences: Type.Array(Difference),
  },
  {
    ...component('WalletReconciliation'),
    examples: [
      {
        walletId: EXAMPLE.walletId,
        budgetId: EXAMPLE.budgetId,
        address: EXAMPLE.wallet,
        confirmedPayouts: 12,
        transfersOnChain: 12,
        differences: [],
      },
    ],
  },
);
