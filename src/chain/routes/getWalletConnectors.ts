// GET /v1/me/wallet/connectors: the wallet connectors the mission page may offer.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { component } from '../../http/schemas.ts';
import { walletConnectors } from '../user-wallets.ts';
import { tags } from './user-wallet-schemas.ts';

const Connectors = Type.Object(
  {
    chainId: Type.Union([Type.Integer(), Type.Null()], {
      description: 'The chain rewards are paid on (the first registered network); null: none yet',
    }),
    injected: Type.Boolean({ description: 'Injected wallets (EIP-6963, window.ethereum) are offered' }),
    miniDapp: Type.Union(
      [
        Type.Object({
          clientId: Type.String(),
          sdkUrl: Type.String({ description: 'Where the page loads the Mini Dapp SDK from (never bundled)' }),
        }),
        Type.Null(),
      ],
      { description: 'The LINE Mini Dapp SDK wallet, when the operator configured a client id' },
    ),
    devWallet: Type.Boolean({
      description: 'A development wallet kept in the browser is offered (never with NODE_ENV=production)',
    }),
  },
  {
    ...component('WalletConnectors'),
    description: 'Which wallet connectors the mission page offers here (docs/wallets.md)',
    examples: [
      {
        chainId: 8217,
        injected: true,
        miniDapp: {
          clientId: 'b3c9a6e2-example',
          sdkUrl: 'https://static.kaiawallet.io/js/dapp-portal-sdk.js',
        },
        devWallet: false,
      },
    ],
  },
);

export const getWalletConnectorsRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database, config } = app.deps;

  app.get(
    '/wallet/connectors',
    {
      schema: {
        operationId: 'getWalletConnectors',
        tags,
        summary: 'The wallet connectors the mission page may offer, as the operator configured them',
        response: { 200: Connectors },
      },
    },
    async () => walletConnectors(database.db, config.walletConnectors),
  );
};
