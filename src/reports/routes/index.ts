// Operator API: read-only reports for the console.
import type { FastifyInstance } from 'fastify';
import { dailyActivityRoute } from './dailyActivity.ts';
import { budgetHistoryRoute } from './budgetHistory.ts';
import { promotionRewardsRoute } from './promotionRewards.ts';

export async function reportRoutes(app: FastifyInstance): Promise<void> {
  await app.register(dailyActivityRoute);
  await app.register(budgetHistoryRoute);
  await app.register(promotionRewardsRoute);
}
