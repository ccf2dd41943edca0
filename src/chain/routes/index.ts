// The chain payout's routes, one file per operation: the operator's networks, chain assets, reward
// wallets, reconciliation and payouts (/admin/v1), and the signed-in user's wallet (/v1/me/wallet).
import type { FastifyPluginAsync } from 'fastify';
import { createChainNetworkRoute } from './createChainNetwork.ts';
import { updateChainNetworkRoute } from './updateChainNetwork.ts';
import { deleteChainNetworkRoute } from './deleteChainNetwork.ts';
import { listChainNetworksRoute } from './listChainNetworks.ts';
import { createChainAssetRoute } from './createChainAsset.ts';
import { createRewardWalletRoute } from './createRewardWallet.ts';
import { getRewardWalletRoute } from './getRewardWallet.ts';
import { fundDevRewardWalletRoute } from './fundDevRewardWallet.ts';
import { reconcileRewardWalletsRoute } from './reconcileRewardWallets.ts';
import { recoverRewardWalletRoute } from './recoverRewardWallet.ts';
import { getRewardWalletAlertsRoute } from './getRewardWalletAlerts.ts';
import { listChainPayoutsRoute } from './listChainPayouts.ts';
import { getWalletConnectorsRoute } from './getWalletConnectors.ts';
import { getWalletChallengeRoute } from './getWalletChallenge.ts';
import { bindWalletRoute } from './bindWallet.ts';
import { getWalletRoute } from './getWallet.ts';

/** Registers every chain operation of the operator API (admin scope). */
export const chainAdminRoutes: FastifyPluginAsync = async (app) => {
  const routes = [
    createChainNetworkRoute,
    updateChainNetworkRoute,
    deleteChainNetworkRoute,
    listChainNetworksRoute,
    createChainAssetRoute,
    createRewardWalletRoute,
    getRewardWalletRoute,
    fundDevRewardWalletRoute,
    reconcileRewardWalletsRoute,
    recoverRewardWalletRoute,
    getRewardWalletAlertsRoute,
    listChainPayoutsRoute,
  ] as FastifyPluginAsync[];
  for (const route of routes) await app.register(route);
};

/** Registers the signed-in user's wallet operations (user scope, under /v1/me). */
export const meWalletRoutes: FastifyPluginAsync = async (app) => {
  const routes = [
    getWalletConnectorsRoute,
    getWalletChallengeRoute,
    bindWalletRoute,
    getWalletRoute,
  ] as FastifyPluginAsync[];
  for (const route of routes) await app.register(route);
};
