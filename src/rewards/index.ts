// The rewards capability as the rest of the service sees it: the completion handler for achieve,
// the link handler for connect, the worker, and the route plugins of each scope.
export { onMissionCompleted, onUserLinked } from './completion.ts';
export { startRewardWorker, runRewardCycle } from './worker.ts';
export type { RewardWorkerOptions } from './worker.ts';
export { ledgerProvider } from './ledger.ts';
export type { PayoutProvider, PayableClaim, PayoutOutcome } from './payout.ts';
export { rewardsAdminRoutes } from './routes/admin.ts';
export { rewardsMeRoutes } from './routes/me.ts';
export { rewardsPublicRoutes } from './routes/public.ts';
