// The composition root: builds the hot-path caches, the completion path (progress -> claims), the
// link handlers (linking -> claims) and every capability's routes, and hands them to the HTTP
// kernel (src/http/server.ts), which imports no capability.
import type { FastifyPluginAsync } from 'fastify';
import { buildServer } from './http/server.ts';
import type { App, AppDeps, ServerWiring } from './http/server.ts';
import { createHotPathCaches } from './hot-path-caches.ts';
import type { HotPathCaches } from './hot-path-caches.ts';
import { createLoginRuntime, devProviderRoutes } from './linking/runtime.ts';
import type { LoginRuntime } from './linking/runtime.ts';
import { linkingAdminRoutes, loginRoutes } from './linking/routes/index.ts';
import { checkLinkRoute } from './linking/routes/checkLink.ts';
import { connectRoute } from './linking/routes/connect.ts';
import { meRoutes } from './linking/routes/me.ts';
import { findUsersRoutes } from './linking/routes/findUsers.ts';
import { authenticatePartner, findPartnerCredentials } from './partners/service.ts';
import { partnerAdminRoutes } from './partners/routes/index.ts';
import { authenticateAdmin } from './admins/service.ts';
import { firstSignInRoutes } from './admins/routes/first-sign-in.ts';
import { adminCredentialRoutes } from './admins/routes/index.ts';
import { whoamiRoutes } from './admins/routes/whoami.ts';
import { listWaitingRewardsRoute } from './admins/routes/listWaitingRewards.ts';
import { startDemoRoute } from './demo/routes/startDemo.ts';
import { resolveSession } from './sessions/service.ts';
import { revokeAllSessionsRoutes } from './sessions/routes/revokeAll.ts';
import { catalogAdminRoutes } from './catalog/routes/index.ts';
import { createAchiever, findMissionForAchieve } from './progress/service.ts';
import { CompletionRateMonitor } from './progress/completion-rates.ts';
import { achieveRoute } from './progress/routes/achieve.ts';
import { progressAdminRoutes } from './progress/routes/index.ts';
import { completionHandler, loadCompletionContext } from './claims/completion.ts';
import type { CompletionContextOf } from './claims/completion.ts';
import { completionsInOneStatement } from './claims/fixed-completions.ts';
import { releaseWaitingClaims } from './claims/deferred-rewards.ts';
import { budgetAdminRoutes } from './budgets/routes/index.ts';
import { claimAdminRoutes } from './claims/routes/index.ts';
import { drawAdminRoutes, drawPublicRoutes } from './draws/routes/index.ts';
import { accountAdminRoutes, meReadRoutes } from './me/routes/index.ts';
import { ticketsNotReceived } from './me/missions.ts';
import { withChainTransactions } from './chain/claim-transactions.ts';
import { purgeExpiredChallenges } from './chain/user-wallets.ts';
import { reportRoutes } from './reports/routes/index.ts';
import { chainAdminRoutes, meWalletRoutes } from './chain/routes/index.ts';
import { idempotencyOnRoute } from './idempotency/route-hooks.ts';
import { startIdempotencyKeyPurge } from './idempotency/expiry-purge.ts';
import { webhookAdminRoutes } from './webhooks/routes/index.ts';
import { operatorWrites } from './audit/operator-writes.ts';
import { listAuditEventsRoute } from './audit/routes/listAuditEvents.ts';

export type { App, AppDeps } from './http/server.ts';

declare module './http/server.ts' {
  interface Services {
    login: LoginRuntime;
    caches: HotPathCaches;
  }
}

/** The service's HTTP application: the kernel with every capability wired in. */
export function buildApp(deps: AppDeps): Promise<App> {
  return buildServer(deps, (app) => wire(app, deps));
}

async function wire(app: App, deps: AppDeps): Promise<ServerWiring> {
  const { config, database, clock } = deps;
  const db = database.db;
  const login = await createLoginRuntime(config, clock, () => app);
  if (login.dev) {
    app.log.warn(
      { issuer: login.dev.issuer },
      'DEVELOPMENT login provider enabled: any user name signs in without a password. Set LOGIN_OIDC_ISSUER for real logins.',
    );
  }
  const caches = await createHotPathCaches(database, config.cacheTtlMs);
  // Idempotency-Key on achieve, connect and the operator creates: added before the scopes register
  // their routes, so it attaches to those routes only (src/idempotency/route-hooks.ts).
  app.addHook('onRoute', idempotencyOnRoute({ db, clock, group: app.coalescers }));
  let keyPurge: { stop(): Promise<void> } | undefined;
  app.addHook('onReady', async () => {
    keyPurge = startIdempotencyKeyPurge(db, clock, { log: app.log });
  });
  app.addHook('onClose', async () => keyPurge?.stop());
  app.addHook('onClose', async () => caches.stop());

  // The completion path: catalog facts come from the cache; on a miss whoever asks reads them (the
  // one-statement path, or the achieve transaction). Inside a transaction a miss never waits for a
  // load another batch started outside one: on PGlite that load waits for the one connection this
  // transaction holds.
  const context: CompletionContextOf = (conn, event) =>
    caches.completions.get(event.missionId, () => loadCompletionContext(conn, event), {
      joinPending: !conn.isTransaction,
    });
  // A partner whose completions jump (made-up users farming rewards) is logged; the counts are
  // flushed in the background at most every few seconds, never on a request's path.
  const rates = new CompletionRateMonitor(
    db,
    clock,
    {
      windowSeconds: config.completionAlarmWindowSeconds,
      multiple: config.completionAlarmMultiple,
      minCompletions: config.completionAlarmMinCompletions,
    },
    (alarm) =>
      app.log.warn(
        { event: 'completion_rate_alarm', ...alarm },
        'completion rate jump: a partner completes far more missions than usual',
      ),
    (err) => app.log.error({ err }, 'completion counts could not be written'),
  );
  app.addHook('onClose', () => rates.flush());
  // Concurrent reports are written in batches (one statement or transaction per batch).
  const achiever = createAchiever(db, clock, {
    onCompleted: (partnerId, completions) => {
      rates.record(partnerId, completions);
      app.metrics.completions.inc({ partner: app.metrics.partners.of(partnerId) }, completions);
    },
    onCompletion: completionHandler(context),
    inOneStatement: completionsInOneStatement(context),
    findMission: (conn, partnerId, missionKey) =>
      caches.missions.get(`${partnerId}\u0000${missionKey}`, () =>
        findMissionForAchieve(conn, partnerId, missionKey),
      ),
    concurrency: config.batchConcurrency,
    group: app.coalescers,
  });

  // The link handlers: when a partner user links, their deferred rewards are granted (in connect's transaction).
  const onLinked = [releaseWaitingClaims(clock, config.claimReservationTtlSeconds)];

  const publicRoutes: ServerWiring['publicRoutes'] = [
    { plugin: loginRoutes(purgeExpiredChallenges) as FastifyPluginAsync, prefix: '/v1' },
    { plugin: drawPublicRoutes, prefix: '/v1' },
  ];
  if (login.dev) publicRoutes.push({ plugin: devProviderRoutes(login.dev) });
  // The first OWNER's one-time sign-in exists only outside production (src/admins/first-sign-in.ts).
  if (config.nodeEnv !== 'production')
    publicRoutes.push({ plugin: firstSignInRoutes as FastifyPluginAsync, prefix: '/admin/v1' });
  return {
    services: { login, caches },
    publicRoutes,
    partner: {
      authenticate: (partnerId, apiKey) =>
        authenticatePartner(
          db,
          partnerId,
          apiKey,
          (conn, id) => caches.partners.get(id, () => findPartnerCredentials(conn, id)),
          config.serviceEnvironment,
          (conn, id) => caches.partners.reload(id, () => findPartnerCredentials(conn, id)),
        ),
      routes: [checkLinkRoute, connectRoute(onLinked)] as FastifyPluginAsync[],
      allowListedRoutes: [achieveRoute(achiever)] as FastifyPluginAsync[],
    },
    admin: {
      authenticate: (secret) => authenticateAdmin(db, secret),
      // Any successful operator write may change what the hot-path caches hold: clear them on every process.
      afterWrite: () => caches.flushEverywhere(),
      inOperatorTransaction: operatorWrites(db, clock),
      routes: [
        adminCredentialRoutes,
        whoamiRoutes,
        partnerAdminRoutes,
        catalogAdminRoutes,
        progressAdminRoutes,
        linkingAdminRoutes,
        findUsersRoutes,
        budgetAdminRoutes,
        // Claim listings show each claim's chain transaction; claims itself stays unaware of chains.
        claimAdminRoutes(withChainTransactions),
        // Rewards that wait for a link or a wallet (read-only; src/admins/waiting-rewards.ts).
        listWaitingRewardsRoute,
        accountAdminRoutes,
        reportRoutes,
        // The tickets a partner user has not received come from the user's missions (me).
        drawAdminRoutes(ticketsNotReceived),
        chainAdminRoutes,
        ...webhookAdminRoutes,
        listAuditEventsRoute,
        // The console's demo campaign (development only; refused in production by the route).
        startDemoRoute,
      ] as FastifyPluginAsync[],
    },
    user: {
      accountOfSession: (sessionId) => resolveSession(db, clock, sessionId),
      routes: [meRoutes, meReadRoutes, revokeAllSessionsRoutes, meWalletRoutes] as FastifyPluginAsync[],
    },
  };
}
