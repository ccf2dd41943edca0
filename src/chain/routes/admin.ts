// Operator API of the chain payout: networks, chain assets, a budget's reward wallet (create or
// import; view with on-chain balances and what it owes) and reconciliation.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { component, errorResponses, EXAMPLE, Id } from '../../http/schemas.ts';
import { resolveWalletKek } from '../signer.ts';
import {
  createChainAsset,
  createNetwork,
  createRewardWallet,
  listNetworks,
  viewRewardWallet,
} from '../service.ts';
import { reconcileWallets } from '../reconcile.ts';
import { fundFromDevFaucet } from '../dev-network.ts';

const tags = ['admin: chain'];
const security = [{ adminBearer: [] }];
const Address = Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', description: 'An EVM address' });
const Network = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    chainId: Type.Integer(),
    rpcUrl: Type.String(),
    confirmations: Type.Integer(),
    explorerTxUrl: Type.Union([Type.String(), Type.Null()]),
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
        confirmations: 3,
        explorerTxUrl: 'https://sepolia.etherscan.io/tx/{hash}',
        createdAt: EXAMPLE.instant,
      },
    ],
  },
);
const ChainAsset = Type.Object(
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
const Wallet = Type.Object(
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
const WalletBalances = Type.Object(
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
const Difference = Type.Object({
  kind: Type.String(),
  txHash: Type.Union([Type.String(), Type.Null()]),
  claimId: Type.Union([Type.String(), Type.Null()]),
  detail: Type.String(),
});
const Reconciliation = Type.Object(
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

export const chainAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { database, clock, config } = app.deps;
  const db = database.db;
  let kek: Buffer | undefined;
  const walletKek = () => (kek ??= resolveWalletKek(config, (message) => app.log.warn(message)));

  app.post(
    '/chain-networks',
    {
      schema: {
        tags,
        security,
        summary: 'Register an EVM network (its RPC endpoint must answer with this chain id)',
        body: Type.Object(
          {
            name: Type.String({ minLength: 1, maxLength: 100 }),
            chainId: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
            rpcUrl: Type.String({ pattern: '^https?://', maxLength: 500 }),
            confirmations: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
            explorerTxUrl: Type.Optional(
              Type.Union([Type.String({ pattern: '^https?://.*\\{hash\\}', maxLength: 500 }), Type.Null()]),
            ),
          },
          {
            additionalProperties: false,
            examples: [
              {
                name: 'Sepolia',
                chainId: 11155111,
                rpcUrl: 'https://rpc.sepolia.example',
                confirmations: 3,
                explorerTxUrl: 'https://sepolia.etherscan.io/tx/{hash}',
              },
            ],
          },
        ),
        response: { 201: Network, ...errorResponses('CHAIN_ID_MISMATCH', 'CHAIN_RPC_UNAVAILABLE') },
      },
    },
    async (request, reply) => reply.code(201).send(await createNetwork(db, clock, request.body)),
  );
  app.get(
    '/chain-networks',
    {
      schema: {
        tags,
        security,
        summary: 'List EVM networks',
        response: { 200: Type.Object({ items: Type.Array(Network) }), ...errorResponses() },
      },
    },
    async () => ({ items: await listNetworks(db) }),
  );

  app.post(
    '/chain-assets',
    {
      schema: {
        tags,
        security,
        summary:
          'Register a reward asset on a chain: a token contract (decimals read from it) or the native coin (no tokenAddress)',
        body: Type.Object(
          {
            networkId: Id('Network id'),
            symbol: Type.String({ minLength: 1, maxLength: 16 }),
            name: Type.String({ minLength: 1, maxLength: 200 }),
            tokenAddress: Type.Optional(Type.Union([Address, Type.Null()])),
          },
          {
            additionalProperties: false,
            examples: [
              {
                networkId: EXAMPLE.networkId,
                symbol: 'USDC',
                name: 'USD Coin (Sepolia)',
                tokenAddress: '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238',
              },
            ],
          },
        ),
        response: {
          201: ChainAsset,
          ...errorResponses('NOT_FOUND_CHAIN_NETWORK', 'NOT_A_TOKEN_CONTRACT', 'CHAIN_RPC_UNAVAILABLE'),
        },
      },
    },
    async (request, reply) => reply.code(201).send(await createChainAsset(db, clock, request.body)),
  );

  app.post(
    '/budgets/:id/reward-wallet',
    {
      schema: {
        tags,
        security,
        summary:
          "Create the budget's reward wallet with a new key, or import one (the key is never shown again)",
        params: Type.Object({ id: Id('Budget id') }),
        body: Type.Object(
          {
            privateKey: Type.Optional(
              Type.String({
                minLength: 1,
                maxLength: 200,
                description: '0x and 64 hex digits; omit to have the service create the key',
              }),
            ),
          },
          { additionalProperties: false, examples: [{}] },
        ),
        response: {
          201: Wallet,
          ...errorResponses(
            'INVALID_PRIVATE_KEY',
            'NOT_FOUND_REWARD_BUDGET',
            'NOT_A_CHAIN_BUDGET',
            'REWARD_WALLET_EXISTS',
            'CHAIN_RPC_UNAVAILABLE',
          ),
        },
      },
    },
    async (request, reply) =>
      reply.code(201).send(
        await createRewardWallet(db, clock, walletKek(), {
          budgetId: request.params.id,
          ...(request.body.privateKey !== undefined && { privateKey: request.body.privateKey }),
        }),
      ),
  );
  app.get(
    '/budgets/:id/reward-wallet',
    {
      schema: {
        tags,
        security,
        summary:
          "The budget's reward wallet: address, balances on chain, what it owes, a warning when it cannot cover that",
        params: Type.Object({ id: Id('Budget id') }),
        response: {
          200: WalletBalances,
          ...errorResponses('NOT_FOUND_REWARD_BUDGET', 'NOT_FOUND_REWARD_WALLET'),
        },
      },
    },
    async (request) => viewRewardWallet(db, request.params.id),
  );

  // Only where the development chain may run: in production this route does not exist.
  if (config.devChain)
    app.post(
      '/budgets/:id/reward-wallet/dev-faucet',
      {
        schema: {
          tags,
          security,
          summary:
            "Development chain only: give the budget's reward wallet coins for gas and test tokens (default 1000 whole units)",
          params: Type.Object({ id: Id('Budget id') }),
          body: Type.Object(
            {
              amount: Type.Optional(
                Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$', maxLength: 80, description: 'Whole units' }),
              ),
            },
            { additionalProperties: false, examples: [{ amount: '1000' }] },
          ),
          response: {
            200: WalletBalances,
            ...errorResponses(
              'INVALID_AMOUNT',
              'NOT_FOUND_REWARD_WALLET',
              'NOT_A_DEV_CHAIN_WALLET',
              'CHAIN_RPC_UNAVAILABLE',
            ),
          },
        },
      },
      async (request) => {
        await fundFromDevFaucet(db, request.params.id, request.body.amount ?? '1000');
        return viewRewardWallet(db, request.params.id);
      },
    );

  app.get(
    '/reward-wallets/reconcile',
    {
      schema: {
        tags,
        security,
        summary: "Compare each reward wallet's transfers on chain with its CONFIRMED payouts",
        response: {
          200: Type.Object({ items: Type.Array(Reconciliation) }),
          ...errorResponses('CHAIN_RPC_UNAVAILABLE'),
        },
      },
    },
    async () => ({ items: await reconcileWallets(db) }),
  );
};
