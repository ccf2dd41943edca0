// Operator API of rewards (/admin/v1), one file per resource family.
import type { FastifyPluginAsync } from 'fastify';
import { assetRoutes } from './assets.ts';
import { budgetRoutes } from './budgets.ts';
import { claimRoutes } from './claims.ts';
import { drawRoutes } from './draws.ts';
import { ledgerRoutes } from './ledger.ts';
import { rewardRuleRoutes } from './rewards.ts';
import { ticketRoutes } from './tickets.ts';

export const rewardsAdminRoutes: FastifyPluginAsync = async (app) => {
  await app.register(assetRoutes);
  await app.register(budgetRoutes);
  await app.register(rewardRuleRoutes);
  await app.register(claimRoutes);
  await app.register(ticketRoutes);
  await app.register(drawRoutes);
  await app.register(ledgerRoutes);
};
