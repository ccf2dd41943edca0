// What the four steps of the chain payout (payout-sign, payout-broadcast, payout-confirm,
// payout-replace) share: the database, the clock, the options, each wallet's signer, each network's
// row and client, and which networks answer (network-health.ts).
import type { Kysely } from 'kysely';
import type { Clock } from '../domain/clock.ts';
import { chainNetworkNotFound } from '../error-factories.ts';
import { createNetworkHealth } from './network-health.ts';
import type { NetworkHealth } from './network-health.ts';
import type { ChainPayoutOptions } from './payout-types.ts';
import { rpcClient } from './rpc.ts';
import type { DB } from '../db/schema.ts';
import { decryptPrivateKey, localKeySigner } from './signer.ts';
import type { Signer } from './signer.ts';
import { findNetwork } from './store.ts';
import type { NetworkRow, WalletRow } from './store.ts';
import { BaseError } from 'viem';
import type { PublicClient } from 'viem';

export interface PayoutContext {
  db: Kysely<DB>;
  clock: Clock;
  options: ChainPayoutOptions;
  health: NetworkHealth;
  signerOf(wallet: WalletRow): Signer;
  /** The network's row, read once per this many seconds at most (an operator may change its URL). */
  networkOf(id: string): Promise<NetworkRow>;
  clientOf(network: NetworkRow): PublicClient;
  /**
   * Runs one network's share of a step: skipped while the network backs off; a failure to reach it
   * backs it off (logged once) instead of stopping the other networks.
   */
  onNetwork<T>(network: NetworkRow, work: (client: PublicClient) => Promise<T>): Promise<T | undefined>;
}

/** How long a network's row is trusted before it is read again (URL changes, disabling). */
const NETWORK_TTL_MS = 5_000;

export function createPayoutContext(db: Kysely<DB>, options: ChainPayoutOptions): PayoutContext {
  const { clock } = options;
  const signers = new Map<string, Signer>();
  const networks = new Map<string, { row: NetworkRow; readAt: number }>();
  const health = createNetworkHealth(clock, options.log);
  const context: PayoutContext = {
    db,
    clock,
    options,
    health,
    signerOf(wallet) {
      let signer = signers.get(wallet.id);
      if (!signer) {
        signer =
          options.signerFor?.(wallet) ??
          localKeySigner(
            decryptPrivateKey(
              typeof options.kek === 'function' ? options.kek() : options.kek,
              wallet.encrypted_key,
              wallet.address,
              options.previousKeks,
            ),
          );
        signers.set(wallet.id, signer);
      }
      return signer;
    },
    async networkOf(id) {
      const now = clock.now().getTime();
      const cached = networks.get(id);
      if (cached && now - cached.readAt < NETWORK_TTL_MS) return cached.row;
      const row = await findNetwork(db, id);
      if (!row) throw chainNetworkNotFound(id);
      networks.set(id, { row, readAt: now });
      return row;
    },
    clientOf: (network) => rpcClient(network),
    async onNetwork(network, work) {
      if (!health.available(network.id)) return undefined;
      try {
        const result = await work(context.clientOf(network));
        health.answered(network);
        return result;
      } catch (error) {
        if (!isNetworkFailure(error)) throw error;
        options.observe?.rpcError(network.name);
        health.failed(network, error);
        return undefined;
      }
    },
  };
  return context;
}

/** Thrown inside onNetwork's work when the node did not answer a call the step cannot do without. */
export class NetworkUnreachable extends Error {
  constructor(override readonly cause: unknown) {
    super('network unreachable');
  }
}

function isNetworkFailure(error: unknown): boolean {
  // Any error of viem (transport, a call the node refused or answered oddly) is the network's; a
  // database or programming error is not, and stops the step as before.
  return error instanceof NetworkUnreachable || error instanceof BaseError;
}
