// The chain payout's metrics: wallet balances and confirmations from the chain reads the payout does
// anyway (never an RPC per scrape), and what the outbox reports through its ChainObserver.
import { Counter, Gauge, Histogram } from 'prom-client';
import type { Registry } from 'prom-client';

export interface ChainMetrics {
  tokenBalance: Gauge<'wallet' | 'asset'>;
  gasBalance: Gauge<'wallet'>;
  confirmationSeconds: Histogram<'network'>;
  confirmationLagBlocks: Gauge<'network'>;
  rpcErrors: Counter<'network'>;
  transferMismatches: Counter<'network'>;
  walletHalts: Counter<'wallet'>;
}

/** The chain metrics, registered in `registers`. */
export function createChainMetrics(registers: Registry[]): ChainMetrics {
  return {
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
    transferMismatches: new Counter({
      name: 'mrs_chain_transfer_mismatches_total',
      help: 'Mined chain payouts whose Transfer did not move exactly the amount to the user (FAILED), by network id.',
      labelNames: ['network'] as const,
      registers,
    }),
    walletHalts: new Counter({
      name: 'mrs_chain_wallet_halts_total',
      help: 'Reward wallets halted because the chain lost transfers the outbox had settled (a deep reorg).',
      labelNames: ['wallet'] as const,
      registers,
    }),
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
export function chainObserverOf(metrics: { chain: ChainMetrics }) {
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
    transferMismatch: (network: string) => chain.transferMismatches.inc({ network }),
    walletHalted: (wallet: string) => chain.walletHalts.inc({ wallet }),
  };
}
