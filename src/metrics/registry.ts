// The Prometheus metrics of one process (docs/operations.md, "Metrics and alerts"). Each built app
// or worker has a registry of its own (never prom-client's global one), so two apps in one test
// process never see each other's counters. Counters and histograms move as things happen; gauges of
// what lives in the database are read at scrape time through one cached, bounded reading.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Database } from '../db/connection.ts';
import type { CoalescerGroup } from '../db/coalescer.ts';
import type { DatabaseReading, DatabaseReadings } from './database-readings.ts';
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

export interface ServiceMetrics {
  registry: Registry;
  partners: PartnerLabels;
  httpRequests: Counter<'route' | 'method' | 'status' | 'partner'>;
  httpDuration: Histogram<'route' | 'method'>;
  rateLimitRefusals: Counter<'limit'>;
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

export interface ChainMetrics {
  tokenBalance: Gauge<'wallet' | 'asset'>;
  gasBalance: Gauge<'wallet'>;
  confirmationSeconds: Histogram<'network'>;
  confirmationLagBlocks: Gauge<'network'>;
  rpcErrors: Counter<'network'>;
}

export interface MetricsSources {
  database: Database;
  readings: DatabaseReadings;
  /** The batching queues of an API process (absent in the worker process). */
  coalescers?: CoalescerGroup;
  /** The payout worker of this process, when it runs one. */
  payoutProgress?: PayoutProgress;
  maxPartnerLabels: number;
}

/** A gauge whose value comes from the scrape-time database reading. */
function fromReading<L extends string>(
  registry: Registry,
  readings: DatabaseReadings,
  config: { name: string; help: string; labelNames?: L[] },
  fill: (gauge: Gauge<L>, reading: DatabaseReading) => void,
): Gauge<L> {
  return new Gauge<L>({
    ...config,
    labelNames: config.labelNames ?? [],
    registers: [registry],
    async collect() {
      const reading = await readings.get();
      // A failed reading leaves nothing rather than stale values: absent series alert on their own.
      this.reset();
      if (reading) fill(this, reading);
    },
  });
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
  const { readings } = sources;
  new Gauge({
    name: 'mrs_metrics_database_reading_success',
    help: '1 when the last scrape-time database reading succeeded within its timeout, else 0.',
    registers,
    async collect() {
      await readings.get();
      this.set(readings.lastOutcome.ok ? 1 : 0);
    },
  });
  fromReading(
    registry,
    readings,
    { name: 'mrs_claims', help: 'Claims by status (all time).', labelNames: ['status'] },
    (g, r) => {
      for (const status of ['RESERVED', 'REQUESTED', 'SUCCEEDED', 'FAILED', 'REJECTED'])
        g.set({ status }, r.claimsByStatus.get(status) ?? 0);
    },
  );
  const perBudget = (name: string, help: string, value: (b: DatabaseReading['budgets'][number]) => number) =>
    fromReading(registry, readings, { name, help, labelNames: ['budget', 'asset'] }, (g, r) => {
      for (const b of r.budgets) g.set({ budget: b.budgetId, asset: b.asset }, value(b));
    });
  perBudget('mrs_budget_remaining', 'What a budget can still pay, in whole asset units.', (b) => b.remaining);
  perBudget('mrs_budget_capacity', "A budget's total, in whole asset units.", (b) => b.total);
  perBudget(
    'mrs_budget_owed',
    'Claims of a budget waiting to be paid (REQUESTED or FAILED), in whole asset units.',
    (b) => b.owed,
  );
  fromReading(
    registry,
    readings,
    { name: 'mrs_payout_queue_depth', help: 'REQUESTED claims whose payout is due.' },
    (g, r) => g.set(r.payoutQueueDepth),
  );
  fromReading(
    registry,
    readings,
    {
      name: 'mrs_payout_oldest_requested_age_seconds',
      help: 'How long the oldest due REQUESTED claim has waited for its payout.',
    },
    (g, r) => g.set(r.oldestRequestedSeconds),
  );
  const perWallet = (name: string, help: string, value: (w: DatabaseReading['wallets'][number]) => number) =>
    fromReading(registry, readings, { name, help, labelNames: ['wallet', 'budget'] }, (g, r) => {
      for (const w of r.wallets) g.set({ wallet: w.address, budget: w.budgetId }, value(w));
    });
  perWallet(
    'mrs_chain_pending_transactions',
    'Chain payouts of a reward wallet signed or broadcast and not yet confirmed.',
    (w) => w.pending,
  );
  perWallet(
    'mrs_chain_oldest_pending_transaction_age_seconds',
    'Age of the oldest unconfirmed chain payout of a reward wallet (a stuck nonce holds every later one).',
    (w) => w.oldestPendingSeconds,
  );
  perWallet(
    'mrs_chain_wallet_next_nonce',
    'The next nonce a reward wallet will sign with.',
    (w) => w.nextNonce,
  );

  // Chain reads the payout does anyway (src/chain/outbox.ts tells these).
  const chain: ChainMetrics = {
    tokenBalance: new Gauge({
      name: 'mrs_chain_wallet_token_balance',
      help: "Token balance of a reward wallet at the payout's last read, in whole token units.",
      labelNames: ['wallet', 'asset'] as const,
      registers,
    }),
    gasBalance: new Gauge({
      name: 'mrs_chain_wallet_gas_balance',
      help: "Native (gas) balance of a reward wallet at the payout's last read, in whole native units.",
      labelNames: ['wallet'] as const,
      registers,
    }),
    confirmationSeconds: new Histogram({
      name: 'mrs_chain_confirmation_seconds',
      help: "Time from signing a chain payout to it having the network's confirmations.",
      labelNames: ['network'] as const,
      buckets: [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600],
      registers,
    }),
    confirmationLagBlocks: new Gauge({
      name: 'mrs_chain_confirmation_lag_blocks',
      help: 'Blocks between the chain head and the oldest broadcast payout still short of its confirmations.',
      labelNames: ['network'] as const,
      registers,
    }),
    rpcErrors: new Counter({
      name: 'mrs_chain_rpc_errors_total',
      help: 'Failed JSON-RPC calls of the chain payout, by network.',
      labelNames: ['network'] as const,
      registers,
    }),
  };

  return {
    registry,
    partners: new PartnerLabels(sources.maxPartnerLabels),
    httpRequests,
    httpDuration,
    rateLimitRefusals,
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

/** A base-unit amount as a float in whole units (for a gauge; exact enough for alerting). */
function wholeUnits(baseUnits: bigint, decimals: number): number {
  const scale = 10n ** BigInt(decimals);
  return Number(baseUnits / scale) + Number(baseUnits % scale) / Number(scale);
}

/**
 * What the chain payout reports (src/chain/outbox.ts ChainObserver), as this registry's chain
 * metrics. Balances are the reads the payout makes before signing anyway: never an RPC per scrape.
 */
export function chainObserverOf(metrics: ServiceMetrics) {
  const { chain } = metrics;
  return {
    balances(
      wallet: string,
      gasWei: bigint,
      token: { symbol: string; decimals: number | null; balance: bigint } | undefined,
    ) {
      chain.gasBalance.set({ wallet }, wholeUnits(gasWei, 18));
      if (token)
        chain.tokenBalance.set(
          { wallet, asset: token.symbol },
          wholeUnits(token.balance, token.decimals ?? 0),
        );
    },
    confirmed: (network: string, seconds: number) => chain.confirmationSeconds.observe({ network }, seconds),
    lag: (network: string, blocks: number) => chain.confirmationLagBlocks.set({ network }, blocks),
    rpcError: (network: string) => chain.rpcErrors.inc({ network }),
  };
}
