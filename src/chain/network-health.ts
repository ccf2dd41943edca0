// Whether each network's RPC endpoint answers, as the payout sees it: a network that fails is left
// alone for a while (exponential backoff, 1 s doubling to 60 s) while every other network goes on,
// and its state changes (down, up again) are logged once each, not once per loop (docs/payout.md,
// "One network down"). Per process on purpose: it only paces this process's calls.
import type { Clock } from '../domain/clock.ts';
import { rpcFailure } from './rpc.ts';

const FIRST_BACKOFF_MS = 1_000;
const MAX_BACKOFF_MS = 60_000;

export interface NetworkHealthLog {
  warn(message: string): void;
  info(message: string): void;
}

interface State {
  failures: number;
  retryAt: number;
  reason: string;
}

export function createNetworkHealth(clock: Clock, log?: NetworkHealthLog) {
  const down = new Map<string, State>();
  return {
    /** False while the network is backing off after a failure. */
    available(networkId: string): boolean {
      const state = down.get(networkId);
      return !state || clock.now().getTime() >= state.retryAt;
    },
    /** The network did not answer: back off, and log it when it was up before. */
    failed(network: { id: string; name: string }, error: unknown): void {
      const reason = rpcFailure(error);
      const state = down.get(network.id);
      const failures = (state?.failures ?? 0) + 1;
      const backoff = Math.min(FIRST_BACKOFF_MS * 2 ** (failures - 1), MAX_BACKOFF_MS);
      down.set(network.id, { failures, retryAt: clock.now().getTime() + backoff, reason });
      if (!state)
        log?.warn(
          `chain network ${network.name} (${network.id}) unreachable (${reason}): its payouts wait, others go on`,
        );
    },
    /** The network answered: log it when it was down. */
    answered(network: { id: string; name: string }): void {
      const state = down.get(network.id);
      if (!state) return;
      down.delete(network.id);
      log?.info(
        `chain network ${network.name} (${network.id}) reachable again after ${state.failures} failed rounds`,
      );
    },
    /** Networks now down, with why (readiness, tests). */
    unreachable(): Array<{ networkId: string; reason: string }> {
      return [...down].map(([networkId, state]) => ({ networkId, reason: state.reason }));
    },
  };
}

export type NetworkHealth = ReturnType<typeof createNetworkHealth>;
