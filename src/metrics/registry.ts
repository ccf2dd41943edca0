// The Prometheus metrics of one process (docs/operations.md, "Metrics and alerts"). Each built app
// or worker has a registry of its own (never prom-client's global one), so two apps in one test
// process never see each other's counters. Counters and histograms move as things happen; gauges of
// what lives in the database are read at scrape time through one cached, bounded reading.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { droppedLogLines } from '../logging/log-output.ts';
import type { Database } from '../db/connection.ts';
import type { CoalescerGroup } from '../db/coalescer.ts';
import type { DatabaseReadings } from './database-readings.ts';
import { createChainMetrics } from './chain-metrics.ts';
import type { ChainMetrics } from './chain-metrics.ts';
import { registerReadingGauges } from './reading-gauges.ts';
import type { PayoutProgress } from './payout-progress.ts';
import { FastCounter, FastHistogram } from './fast-metrics.ts';

/** Partner ids as label values, at most `max` distinct ones per process; the rest are "other". */
export class PartnerLabels {
  readonly #seen = new Set<string>();
  constructor(private readonly max: number) {}

  of(partnerId: string | undefined | null): string {
    if (partnerId === undefined || partnerId === null) return 'none';
    if (this.#seen.has(partnerId)) return partnerId;
    if (this.#seen.size >= this.max) return 'other';
    this.#seen.add(partnerId);
    return partnerId;
  }
}

const SECONDS_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const BATCH_SIZE_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];

export type { ChainMetrics } from './chain-metrics.ts';
export { chainObserverOf } from './chain-metrics.ts';

export interface ServiceMetrics {
  registry: Registry;
  partners: PartnerLabels;
  httpRequests: Counter<'route' | 'method' | 'status' | 'partner'>;
  httpDuration: Histogram<'route' | 'method'>;
  rateLimitRefusals: Counter<'limit'>;
  /** Requests let through uncounted because the rate-limit counters (Redis) were away. */
  rateLimitUnavailable: Counter<'limit'>;
  /** 1 while the rate-limit counters in Redis answer, 0 while the breaker skips them. */
  rateLimitStoreUp: Gauge;
  authRefusals: Counter<'scope'>;
  completions: Counter<'partner'>;
  /** Wallet balances and confirmations, from the chain reads the payout already does. */
  chain: ChainMetrics;
  /** The exposition text (Prometheus text format 0.0.4). */
  exposition(): Promise<string>;
  contentType: string;
  /** Stops the listeners this registry added (the app's onClose). */
  stop(): void;
}

export interface MetricsSources {
  database: Database;
  readings: DatabaseReadings;
  /** The batching queues of an API process (absent in the worker process). */
  coalescers?: CoalescerGroup;
  /** The payout worker of this process, when it runs one. */
  payoutProgress?: PayoutProgress;
  /** Connections of the public port closed as they were accepted (LOAD_SHED_MAX_CONNECTIONS, LOAD_SHED_MAX_LOOP_UTILIZATION). */
  connectionsRefused?: () => number;
  maxPartnerLabels: number;
}

export function createServiceMetrics(sources: MetricsSources): ServiceMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const stops: Array<() => void> = [];

  // Counted and observed on every answer: FastCounter and FastHistogram (fast-metrics.ts).
  const httpRequests = new FastCounter({
    name: 'mrs_http_requests_total',
    help: 'HTTP requests answered, by route template, method, status and partner (bounded).',
    labelNames: ['route', 'method', 'status', 'partner'] as const,
    registers,
  });
  const httpDuration = new FastHistogram({
    name: 'mrs_http_request_duration_seconds',
    help: 'Time from a request arriving to its answer being sent, by route template and method.',
    labelNames: ['route', 'method'] as const,
    buckets: SECONDS_BUCKETS,
    registers,
  });
  const rateLimitRefusals = new Counter({
    name: 'mrs_rate_limit_refusals_total',
    help: 'Requests refused with 429 by a rate limit, by limit.',
    labelNames: ['limit'] as const,
    registers,
  });
  const rateLimitUnavailable = new Counter({
    name: 'mrs_rate_limit_unavailable_total',
    help: 'Requests let through without counting because the rate-limit counters (Redis) were away, by limit.',
    labelNames: ['limit'] as const,
    registers,
  });
  const rateLimitStoreUp = new Gauge({
    name: 'mrs_rate_limit_store_up',
    help: 'With REDIS_URL: 1 while the rate-limit counters in Redis answer, 0 while they are skipped (limits fail open).',
    registers,
  });
  const authRefusals = new Counter({
    name: 'mrs_auth_refusals_total',
    help: 'Requests refused for missing or wrong credentials (401), by scope (partner, admin, user, metrics).',
    labelNames: ['scope'] as const,
    registers,
  });
  const completions = new Counter({
    name: 'mrs_completions_total',
    help: 'Mission completions reported by partners (the first completed=true of a period), by partner (bounded).',
    labelNames: ['partner'] as const,
    registers,
  });

  // Log lines standard output could not take in time (src/logging/log-output.ts).
  new Counter({
    name: 'mrs_log_lines_dropped_total',
    help: 'Log lines dropped because standard output was slower than the process wrote (LOG_BUFFER_MAX_BYTES).',
    registers,
    collect() {
      this.reset();
      this.inc(droppedLogLines());
    },
  });

  const { connectionsRefused } = sources;
  if (connectionsRefused) {
    new Counter({
      name: 'mrs_http_connections_refused_total',
      help: 'Connections closed as they were accepted: more than LOAD_SHED_MAX_CONNECTIONS were open, or the event loop was saturated (LOAD_SHED_MAX_LOOP_UTILIZATION).',
      registers,
      collect() {
        this.reset();
        this.inc(connectionsRefused());
      },
    });
  }

  // The batching queues (src/db/coalescer.ts).
  const coalescers = sources.coalescers;
  if (coalescers) {
    const queueGauge = (
      name: string,
      help: string,
      value: (r: ReturnType<CoalescerGroup['reading']>) => number,
    ) =>
      new Gauge({
        name,
        help,
        registers,
        collect() {
          this.set(value(coalescers.reading()));
        },
      });
    queueGauge(
      'mrs_coalescer_waiting',
      'Requests waiting in the batching queues for a batch.',
      (r) => r.waiting,
    );
    queueGauge('mrs_coalescer_running', 'Batches running now.', (r) => r.running);
    queueGauge(
      'mrs_coalescer_oldest_wait_seconds',
      'Age of the oldest request waiting for a batch.',
      (r) => r.oldestWaitMs / 1000,
    );
    const batchSize = new FastHistogram({
      name: 'mrs_coalescer_batch_size',
      help: 'Requests per batch written to the database.',
      buckets: BATCH_SIZE_BUCKETS,
      registers,
    });
    const batchDuration = new FastHistogram({
      name: 'mrs_coalescer_batch_duration_seconds',
      help: 'How long one batch took in the database.',
      buckets: SECONDS_BUCKETS,
      registers,
    });
    coalescers.onBatch = (size, ms) => {
      batchSize.observe(size);
      batchDuration.observe(ms / 1000);
    };
    stops.push(() => (coalescers.onBatch = undefined));
  }

  // The connection pool (src/db/connection.ts).
  const { database } = sources;
  const poolGauge = (name: string, help: string, value: (r: ReturnType<Database['poolReading']>) => number) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.set(value(database.poolReading()));
      },
    });
  poolGauge('mrs_db_pool_connections_max', 'Most connections the pool may open.', (r) => r.max);
  poolGauge('mrs_db_pool_connections_open', 'Connections the pool holds open.', (r) => r.open);
  poolGauge('mrs_db_pool_connections_in_use', 'Connections handed out to queries now.', (r) => r.inUse);
  poolGauge('mrs_db_pool_waiting', 'Queries waiting for a pool connection.', (r) => r.waiting);
  const acquireWait = new FastHistogram({
    name: 'mrs_db_pool_acquire_wait_seconds',
    help: 'How long a query waited for a pool connection.',
    buckets: [0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 2.5, 5],
    registers,
  });
  stops.push(database.onAcquire((ms) => acquireWait.observe(ms / 1000)));

  // The payout worker of this process.
  const progress = sources.payoutProgress;
  if (progress) {
    const batches = new Counter({
      name: 'mrs_payout_batches_total',
      help: 'Payout batches of this process, by outcome (ok, error).',
      labelNames: ['outcome'] as const,
      registers,
    });
    const handled = new Counter({
      name: 'mrs_payout_claims_handled_total',
      help: 'Claims the payout batches of this process handled (paid, failed, or handed to the chain outbox).',
      registers,
    });
    const duration = new Histogram({
      name: 'mrs_payout_batch_duration_seconds',
      help: 'How long one payout batch took.',
      buckets: SECONDS_BUCKETS,
      registers,
    });
    new Gauge({
      name: 'mrs_payout_seconds_since_last_batch',
      help: 'Seconds since a payout batch of this process last finished without an error.',
      registers,
      collect() {
        this.set(progress.msSinceLastSuccess() / 1000);
      },
    });
    stops.push(
      progress.onBatch((outcome) => {
        batches.inc({ outcome: outcome.ok ? 'ok' : 'error' });
        handled.inc(outcome.handled);
        duration.observe(outcome.durationMs / 1000);
      }),
    );
  }

  // What lives in the database, read at scrape time (database-readings.ts).
  registerReadingGauges(registry, sources.readings);

  // Chain reads the payout does anyway (src/chain/outbox.ts tells these).
  const chain = createChainMetrics(registers);

  return {
    registry,
    partners: new PartnerLabels(sources.maxPartnerLabels),
    httpRequests,
    httpDuration,
    rateLimitRefusals,
    rateLimitUnavailable,
    rateLimitStoreUp,
    authRefusals,
    completions,
    chain,
    exposition: () => registry.metrics(),
    contentType: registry.contentType,
    stop: () => {
      for (const stop of stops) stop();
    },
  };
}
