// The gauges of what lives in the database (claims, budgets, the payout queue, reward wallets),
// read at scrape time through one cached, bounded reading (database-readings.ts).
import { Gauge } from 'prom-client';
import type { Registry } from 'prom-client';
import type { DatabaseReading, DatabaseReadings } from './database-readings.ts';

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

/** Registers every gauge of the scrape-time database reading in `registry`. */
export function registerReadingGauges(registry: Registry, readings: DatabaseReadings): void {
  new Gauge({
    name: 'mrs_metrics_database_reading_success',
    help: '1 when the last scrape-time database reading succeeded within its timeout, else 0.',
    registers: [registry],
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
    'What a budget owes: its claims not yet paid (RESERVED, REQUESTED or FAILED), in whole asset units.',
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
  perWallet(
    'mrs_chain_wallet_halted',
    'A reward wallet halted by a reorg deeper than the confirmations (1), until an operator recovers it (0).',
    (w) => (w.haltedReason === null ? 0 : 1),
  );
}
