// The asset and budget operator routes (/admin/v1), one file per operation.
import type { FastifyPluginAsync } from 'fastify';
import { createAssetRoute } from './createAsset.ts';
import { listAssetsRoute } from './listAssets.ts';
import { getAssetRoute } from './getAsset.ts';
import { updateAssetRoute } from './updateAsset.ts';
import { createBudgetRoute } from './createBudget.ts';
import { listBudgetsRoute } from './listBudgets.ts';
import { getBudgetRoute } from './getBudget.ts';
import { topUpBudgetRoute } from './topUpBudget.ts';
import { getBudgetCapsRoute } from './getBudgetCaps.ts';
import { setBudgetCapsRoute } from './setBudgetCaps.ts';
import { listSharedPayoutAddressesRoute } from './listSharedPayoutAddresses.ts';

/** Registers every asset and budget operation. */
export const budgetAdminRoutes: FastifyPluginAsync = async (app) => {
  const routes = [
    createAssetRoute,
    listAssetsRoute,
    getAssetRoute,
    updateAssetRoute,
    createBudgetRoute,
    listBudgetsRoute,
    getBudgetRoute,
    topUpBudgetRoute,
    getBudgetCapsRoute,
    setBudgetCapsRoute,
    listSharedPayoutAddressesRoute,
  ] as FastifyPluginAsync[];
  for (const route of routes) await app.register(route);
};
