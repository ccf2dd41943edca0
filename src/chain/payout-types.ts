// What the chain payout's parts share (docs/payout.md): the claims handed over, their outcomes, the
// options and observer of the payout, and its gas limits. Its own module, so that outbox.ts (which
// runs the parts) and the parts (payout-sign, -broadcast, -confirm, -replace) import it, not each other.
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import type { NetworkHealthLog } from './network-health.ts';
import type { Signer } from './signer.ts';
import type { WalletRow } from './store.ts';

/** Fixed gas limits: a native transfer costs exactly 21,000; an ERC-20 transfer to a new holder about 52,000. */
export const NATIVE_TRANSFER_GAS = 21_000n;
export const TOKEN_TRANSFER_GAS = 100_000n;

/** Why a claim went back from SUCCEEDED to REQUESTED (its history row and its reason). */
export const REORG_REOPEN_REASON =
  'chain: a reorg deeper than the confirmations removed its transfer; paid again (same signed transaction) when the wallet is recovered';

/** A claim to pay on chain (the seam to the rewards module: it hands these over and hears back). */
export interface ChainClaim {
  claimId: string;
  budgetId: string;
  /** The platform account paid; its bound wallet at signing time receives the transfer. */
  accountId: string;
  /** Base units, a decimal string. */
  amount: string;
}

export interface ClaimOutcome {
  claimId: string;
  status: 'SUCCEEDED' | 'FAILED';
  reason: string | null;
  txHash: string | null;
  /** A failure that must not be retried: the transaction was mined but moved another amount (or none). */
  final?: boolean;
}

export interface PayClaimsResult {
  /** Claims now in the outbox with a signed transaction (this call or an earlier one). */
  signed: string[];
  /** Claims whose user has bound no wallet yet: they wait and are handed over again later. */
  waitingForWallet: string[];
  /** Claims that cannot be paid now, with the reason (e.g. the wallet lacks tokens or gas). */
  failed: ClaimOutcome[];
  /**
   * Claims of a network that does not answer, is disabled, or of a halted wallet: they wait, with
   * no attempt counted, and are handed over again later.
   */
  waitingForNetwork: string[];
}

/** Where a test may pause the engine to kill its process (test/chain fixtures). */
export type PayoutStep = 'signed' | 'broadcast' | 'mined';

export interface ChainPayoutOptions {
  db: Kysely<DB>;
  clock: Clock;
  /** Key-encryption key of the wallets' private keys (a function: resolved at the first signature). */
  kek: Buffer | (() => Buffer);
  /** Earlier key-encryption keys, still accepted for decryption during a rotation (WALLET_KEK_PREVIOUS). */
  previousKeks?: readonly Buffer[];
  /** Called in the transaction that settles payouts: a claim's outcome commits with its payout's. */
  onSettled?: (trx: Transaction<DB>, outcomes: ClaimOutcome[]) => Promise<void>;
  /**
   * Called in the transaction that takes back CONFIRMED payouts a deep reorg removed (the wallet is
   * halted, or recovered): their claims are re-opened with them (docs/payout.md).
   */
  onReopened?: (trx: Transaction<DB>, claimIds: string[], now: Date) => Promise<void>;
  /** A transaction without a receipt is sent again after this long (default 15 s). */
  rebroadcastAfterMs?: number;
  /** A transaction without a receipt this long after signing is replaced with a higher fee (default 60 s). */
  replaceAfterMs?: number;
  /** Fee increase of a replacement, percent (nodes require at least 10). */
  feeBumpPercent?: number;
  /** Payouts per broadcast or confirm round. */
  batchSize?: number;
  /** The KMS seam: the signer of a wallet; by default its key decrypted from the database. */
  signerFor?: (wallet: WalletRow) => Signer;
  /** Test hook: awaited after a step, so a test can kill the process there. */
  holdAt?: (step: PayoutStep) => Promise<void>;
  /** Told what the payout reads anyway (balances, confirmations, RPC failures): the metrics. */
  observe?: ChainObserver;
  /** Where state changes are told once each (a network down and up again, a wallet halted, a FAILED payout). */
  log?: NetworkHealthLog;
}

/** What the payout reports of the chain as it goes (src/metrics turns it into gauges and counters). */
export interface ChainObserver {
  /** A reward wallet's balances as read before signing: gas in wei, the token in base units. */
  balances(
    wallet: string,
    gasWei: bigint,
    token: { symbol: string; decimals: number | null; balance: bigint } | undefined,
  ): void;
  /** A payout reached its confirmations this long after it was (last) signed. */
  confirmed(network: string, secondsSinceSigned: number): void;
  /** Blocks the oldest mined payout of a network still waits for its confirmations (0 when none waits). */
  lag(network: string, blocks: number): void;
  /** A JSON-RPC call failed. */
  rpcError(network: string): void;
  /** A reward wallet was halted (a reorg deeper than the confirmations lost settled transfers). */
  walletHalted?(wallet: string): void;
  /** A mined transfer did not move exactly its amount to the user (its payout is FAILED). */
  transferMismatch?(networkId: string): void;
}
