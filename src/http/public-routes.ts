// Routes that need no credentials: health, readiness and the OpenAPI document.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { serviceNotReady } from '../error-factories.ts';
import { component, errorResponses } from './schemas.ts';
import { gcSaturation, queueHealth } from './load-shedding.ts';

/**
 * One reading of work stuck in this process: a reason it is not ready, or undefined. /readyz runs
 * every one before it queries: stuck work is known without a query, which might itself wait behind it.
 */
type StuckWorkReading = (app: FastifyInstance) => string | undefined;

const stuckWorkReadings: StuckWorkReading[] = [
  (app) =>
    queueHealth(app).ready ? undefined : 'database work is not moving (a batching queue is full or stuck)',
  // Saturated by its own work: collecting garbage back to back (a heap at its limit).
  gcSaturation,
];

/** Why this process should get no traffic now, or undefined when it is ready. */
async function notReadyReason(app: FastifyInstance): Promise<{ reason: string; err?: unknown } | undefined> {
  const { database, config } = app.deps;
  for (const reading of stuckWorkReadings) {
    const reason = reading(app);
    if (reason !== undefined) return { reason };
  }
  // Its own short timeout and (on PostgreSQL) its own connection: a pool saturated by stuck
  // requests must make readiness fail fast, not queue it behind them.
  const probe = await database.probe(config.readiness.timeoutMs);
  if (!probe.answered) return { reason: 'the database does not answer', err: probe.error };
  if (probe.waiting > config.readiness.maxPoolWaiting) {
    return {
      reason: `${probe.waiting} queries wait for a database connection (more than ${config.readiness.maxPoolWaiting})`,
    };
  }
  return (await haltedRewardWallet(app)) ?? payoutStall(app);
}

/**
 * The payout worker of this process (when it runs one) cannot pay from a reward wallet halted by a
 * reorg deeper than the confirmations until an operator recovers it (docs/operations.md): the
 * worker says not ready, so its orchestrator and alerts see it. From the metrics' cached reading.
 */
async function haltedRewardWallet(app: FastifyInstance): Promise<{ reason: string } | undefined> {
  if (app.deps.payoutProgress === undefined) return undefined;
  const halted = (await app.databaseReadings.get())?.wallets.find((w) => w.haltedReason !== null);
  if (halted === undefined) return undefined;
  return {
    reason: `reward wallet ${halted.address} of budget ${halted.budgetId} is halted: ${halted.haltedReason} (recover it: POST /admin/v1/reward-wallets/{id}/recover)`,
  };
}

/**
 * The payout worker of this process (when it runs one) makes no progress while work waits: a due
 * REQUESTED claim older than the bound, and no batch finished without an error within it. The claim's
 * age comes from the metrics' cached, bounded database reading, so /readyz adds no query of its own.
 */
async function payoutStall(app: FastifyInstance): Promise<{ reason: string } | undefined> {
  const progress = app.deps.payoutProgress;
  if (progress === undefined) return undefined;
  const boundMs = app.deps.config.readiness.payoutStallMs;
  const sinceBatchMs = progress.msSinceLastSuccess();
  if (sinceBatchMs <= boundMs) return undefined;
  const reading = await app.databaseReadings.get();
  if (reading === undefined || reading.oldestRequestedSeconds * 1000 <= boundMs) return undefined;
  return {
    reason:
      `payouts are stuck: a claim has waited ${Math.round(reading.oldestRequestedSeconds)} s and no payout ` +
      `batch finished in ${Math.round(sinceBatchMs / 1000)} s`,
  };
}

export async function publicRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    '/healthz',
    {
      schema: {
        operationId: 'getHealth',
        tags: ['operations'],
        summary: 'The process is up',
        response: { 200: Type.Object({ status: Type.Literal('ok') }) },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        operationId: 'getReadiness',
        tags: ['operations'],
        summary: 'The database answers promptly, no work is stuck and payouts move',
        response: {
          200: Type.Object({ status: Type.Literal('ready') }),
          ...errorResponses('SERVICE_UNAVAILABLE'),
        },
      },
    },
    async (request, reply) => {
      const notReady = await notReadyReason(app);
      if (notReady === undefined) return { status: 'ready' as const };
      request.log.warn({ reason: notReady.reason, err: notReady.err }, 'readiness check failed');
      return reply.code(503).header('retry-after', '1').send(serviceNotReady(notReady.reason).toBody());
    },
  );

  // Which environment this deployment is: the pages show a banner on preview (docs/environments.md).
  app.get(
    '/v1/environment',
    {
      schema: {
        operationId: 'getEnvironment',
        tags: ['operations'],
        summary:
          'Which environment this deployment is: preview (mrk_test_ keys) or production (mrk_live_ keys)',
        response: {
          200: Type.Object({
            environment: Type.Union([Type.Literal('preview'), Type.Literal('production')], {
              ...component('ServiceEnvironment'),
              description: 'preview (testing) or production (live), spec 1',
            }),
          }),
        },
      },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'public, max-age=300');
      return { environment: app.deps.config.serviceEnvironment };
    },
  );

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
