// The reward-rule and claim operator routes (/admin/v1), one file per operation.
import type { FastifyPluginAsync } from 'fastify';
import { setMissionRewardRoute } from './setMissionReward.ts';
import { removeMissionRewardRoute } from './removeMissionReward.ts';
import { setGroupRewardRoute } from './setGroupReward.ts';
import { removeGroupRewardRoute } from './removeGroupReward.ts';
import { setStreakRewardsRoute } from './setStreakRewards.ts';
import { getStreakRewardsRoute } from './getStreakRewards.ts';
import { listClaimsRoute } from './listClaims.ts';
import { claimHistoryRoute } from './claimHistory.ts';
import { rejectClaimRoute } from './rejectClaim.ts';
import { retryClaimRoute } from './retryClaim.ts';
import type { WithChainTransactions } from './schemas.ts';

export type { WithChainTransactions } from './schemas.ts';

/** Registers every reward-rule and claim operation; claim listings get their chain transactions. */
export const claimAdminRoutes =
  (withChainTransactions: WithChainTransactions): FastifyPluginAsync =>
  async (app) => {
    const routes = [
      setMissionRewardRoute,
      removeMissionRewardRoute,
      setGroupRewardRoute,
      removeGroupRewardRoute,
      setStreakRewardsRoute,
      getStreakRewardsRoute,
      listClaimsRoute(withChainTransactions),
      claimHistoryRoute,
      rejectClaimRoute,
      retryClaimRoute,
    ] as FastifyPluginAsync[];
    for (const route of routes) await app.register(route);
  };
