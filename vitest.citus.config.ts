import { defineConfig } from 'vitest/config';

// The named Citus part (docs/scaling.md "On Citus"): run by .ci/citus.sh with DATABASE_URL naming
// the coordinator of a cluster with two workers. Every test file gets its own database on every
// node (test/citus/database.ts). One file at a time: the cluster's three PostgreSQL servers share
// the machine's cores with the service and the test.
export default defineConfig({
  test: {
    include: [
      // Distribution itself, rows on their worker, adding a worker under load.
      'test/citus/**/*.test.ts',
      // The partner API, the login and the sessions.
      'test/achieve.happy.test.ts',
      'test/connect.errors.test.ts',
      'test/linking-journey.happy.test.ts',
      'test/dev-login.happy.test.ts',
      'test/sessions.security.test.ts',
      // States, sessions and wallet challenges on shards of their own keys (0046): a state used
      // once at the callback, a challenge used once when two binds race.
      'test/login-callback.security.test.ts',
      'test/me-wallet.security.test.ts',
      // Money exactly once: the flash crowd on one budget, the payout worker killed mid-batch,
      // retries, the chain outbox (nonces, leasing, confirmations) killed at every step.
      'test/rewards.concurrency.test.ts',
      // One budget shared by eight partners' crowds: each partner's stripes, refills from the
      // pool, the last units (0041); the reservation engine's batches of several partners.
      'test/shared-budget.concurrency.test.ts',
      'test/batching.concurrency.test.ts',
      'test/payout-retry.happy.test.ts',
      'test/chain-payout.crash.test.ts',
      'test/chain-wallets.happy.test.ts',
      // Webhooks (outbox and delivery, crash), idempotency keys, rate-limit counters, purges.
      'test/webhooks.happy.test.ts',
      'test/webhooks.crash.test.ts',
      // Leased partner by partner (0045): a round reads its own messages, not the backlog.
      'test/webhooks-backlog.happy.test.ts',
      // Several POSTs in flight to one endpoint, each user's events in order, a round out of time.
      'test/webhooks-delivery.concurrency.test.ts',
      // The outbox's rows (0048) made messages on their partner's shard, once, whoever races.
      'test/webhooks-outbox.happy.test.ts',
      'test/idempotency.concurrency.test.ts',
      // A key claimed in the completion's own statement, on the partner's shard (0043).
      'test/idempotency-in-statement.happy.test.ts',
      // Replays, refusals and the purge of expired keys over the shards.
      'test/idempotency.happy.test.ts',
      'test/rate-limits.security.test.ts',
      'test/expiry-purge.happy.test.ts',
      // The console's lists and reports, draws, the audit log (a budget's top-up among its
      // writes), claims' status and history on every path (payout, retry, expiry, link sweep).
      'test/reports.happy.test.ts',
      'test/draws.happy.test.ts',
      // Tickets on their partner's shard (0044): a draw over several partners' tickets, on a chain.
      'test/draws.security.test.ts',
      'test/draws-chain.happy.test.ts',
      'test/audit.happy.test.ts',
      'test/budget-top-up.concurrency.test.ts',
      'test/claim-history.happy.test.ts',
      // Claims distributed (0042): caps under their locks (per account, partner, address), one
      // reward per person across relinks, the link sweep, the mission page's and the console's
      // reads of claims, the metrics' sums, chain claims.
      'test/reward-farming.security.test.ts',
      'test/payout-addresses.security.test.ts',
      'test/one-reward-per-person.security.test.ts',
      'test/me.happy.test.ts',
      'test/me-missions.happy.test.ts',
      'test/waiting-rewards.happy.test.ts',
      'test/metrics.happy.test.ts',
      'test/chain-claims.happy.test.ts',
      'test/rewards-admin.happy.test.ts',
    ],
    pool: 'forks',
    maxWorkers: 1,
    // Its files one after another in one module registry, as in the main suite's shared project
    // (vitest.config.ts), where every file of this list also runs: with a registry a file,
    // evaluating the service's modules again took 198 s of the part's 2,042 in the CI rehearsal of
    // 2026-12-02, beside the two passes it slows.
    isolate: false,
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
