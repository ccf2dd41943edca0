// The chain payout outbox (docs/payout.md): claims are signed into transactions with the wallet's
// next nonces and stored in one database transaction, broadcast only after that commit, confirmed
// from receipts, re-broadcast when dropped and replaced (same nonce, higher fee) when stuck.
import { BaseError, ContractFunctionRevertedError, encodeFunctionData, erc20Abi, keccak256 } from 'viem';
import type { Address, Hex, PublicClient } from 'viem';
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import { groupBy } from '../domain/group-by.ts';
import { newId } from '../domain/ids.ts';
import { rpcClient } from './rpc.ts';
import { chainDb } from './schema.ts';
import type { ChainDB } from './schema.ts';
import { decryptPrivateKey, localKeySigner } from './signer.ts';
import type { Signer } from './signer.ts';
import {
  claimsWithLivePayout,
  findBudgetChainAsset,
  findNetwork,
  findUserWallets,
  findWalletOfBudget,
  insertPayouts,
  leaseDueBroadcasts,
  listBroadcastPayouts,
  lockNextNonce,
  lockPayoutForReplacement,
  recordBroadcasts,
  recordReplacement,
  setNextNonce,
  settlePayouts,
  unsettledOutflows,
} from './store.ts';
import type { NetworkRow, NewPayout, Settlement, WalletRow } from './store.ts';

/** Fixed gas limits: a native transfer costs exactly 21,000; an ERC-20 transfer to a new holder about 52,000. */
export const NATIVE_TRANSFER_GAS = 21_000n;
export const TOKEN_TRANSFER_GAS = 100_000n;

/** OpenZeppelin 5's ERC-20 errors, so a revert reads as its name and values. */
const erc20Errors = [
  {
    type: 'error',
    name: 'ERC20InsufficientBalance',
    inputs: [
      { name: 'sender', type: 'address' },
      { name: 'balance', type: 'uint256' },
      { name: 'needed', type: 'uint256' },
    ],
  },
  { type: 'error', name: 'ERC20InvalidReceiver', inputs: [{ name: 'receiver', type: 'address' }] },
  { type: 'error', name: 'ERC20InvalidSender', inputs: [{ name: 'sender', type: 'address' }] },
] as const;
const tokenAbi = [...erc20Abi, ...erc20Errors];

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
}

export interface PayClaimsResult {
  /** Claims now in the outbox with a signed transaction (this call or an earlier one). */
  signed: string[];
  /** Claims whose user has bound no wallet yet: they wait and are handed over again later. */
  waitingForWallet: string[];
  /** Claims that cannot be paid now, with the reason (e.g. the wallet lacks tokens or gas). */
  failed: ClaimOutcome[];
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
}

interface Fees {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

function messageOf(error: unknown): string {
  if (error instanceof BaseError) return error.details || error.shortMessage;
  return error instanceof Error ? error.message : String(error);
}

/** Node answers to a broadcast that mean "this transaction (or its nonce) is already in": harmless. */
const ALREADY_IN =
  /already known|known transaction|already imported|nonce too low|nonce has already been used|replacement transaction underpriced/i;

/** A refusal because an earlier nonce is still missing: worth sending again in order. */
const NONCE_AHEAD = /nonce too high|can't be queued/i;

export type ChainPayout = ReturnType<typeof createChainPayout>;

export function createChainPayout(options: ChainPayoutOptions) {
  const db = chainDb(options.db);
  const { clock } = options;
  const rebroadcastAfterMs = options.rebroadcastAfterMs ?? 15_000;
  const replaceAfterMs = options.replaceAfterMs ?? 60_000;
  const feeBump = BigInt(100 + (options.feeBumpPercent ?? 25));
  const batchSize = options.batchSize ?? 1000;
  const signers = new Map<string, Signer>();
  const signerOf = (wallet: WalletRow): Signer => {
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
  };
  const networks = new Map<string, NetworkRow>();
  const networkOf = async (id: string): Promise<NetworkRow> => {
    let network = networks.get(id);
    if (!network) {
      network = await findNetwork(db, id);
      if (!network) throw new Error(`no network '${id}'`);
      networks.set(id, network);
    }
    return network;
  };

  async function currentFees(client: PublicClient): Promise<Fees> {
    const fees = await client.estimateFeesPerGas({ type: 'eip1559', chain: undefined });
    return { maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas };
  }

  /**
   * Signs and stores the claims of one budget, then answers; the broadcast comes after the commit.
   * Balances are checked first so that a wallet short of tokens or gas fails claims with a reason
   * instead of signing transactions that would revert or never be accepted.
   */
  async function signForBudget(
    budgetId: string,
    claims: ChainClaim[],
    result: PayClaimsResult,
  ): Promise<void> {
    const fail = (claim: ChainClaim, reason: string) =>
      result.failed.push({ claimId: claim.claimId, status: 'FAILED', reason, txHash: null });
    const asset = await findBudgetChainAsset(db, budgetId);
    if (!asset) return claims.forEach((c) => fail(c, `budget ${budgetId} does not pay a chain asset`));
    const wallet = await findWalletOfBudget(db, budgetId);
    if (!wallet) return claims.forEach((c) => fail(c, `budget ${budgetId} has no reward wallet`));
    const recipients = await findUserWallets(db, [...new Set(claims.map((c) => c.accountId))]);
    const payable = claims.filter((c) => {
      if (recipients.has(c.accountId)) return true;
      result.waitingForWallet.push(c.claimId);
      return false;
    });
    const already = await claimsWithLivePayout(
      db,
      payable.map((c) => c.claimId),
    );
    const fresh = payable.filter((c) => !already.has(c.claimId));
    result.signed.push(...payable.filter((c) => already.has(c.claimId)).map((c) => c.claimId));
    if (fresh.length === 0) return;

    const network = await networkOf(wallet.network_id);
    const client = rpcClient(network);
    const token = asset.token_address as Address | null;
    const gasLimit = token ? TOKEN_TRANSFER_GAS : NATIVE_TRANSFER_GAS;
    // One fee quote and one balance read per batch, never a per-claim estimate.
    const [fees, gasBalance, tokenBalance] = await Promise.all([
      currentFees(client),
      client.getBalance({ address: wallet.address as Address }),
      token
        ? client.readContract({
            address: token,
            abi: erc20Abi,
            functionName: 'balanceOf',
            args: [wallet.address as Address],
          })
        : Promise.resolve(0n),
    ]).catch((error: unknown) => {
      options.observe?.rpcError(network.name);
      throw error;
    });
    options.observe?.balances(
      wallet.address,
      gasBalance,
      token ? { symbol: asset.symbol, decimals: asset.decimals, balance: tokenBalance } : undefined,
    );
    const outflows = await unsettledOutflows(db, wallet.id);
    let gasLeft = gasBalance - outflows.gasWei - (outflows.tokens.get('') ?? 0n);
    let tokensLeft = token ? tokenBalance - (outflows.tokens.get(token) ?? 0n) : 0n;
    const gasPerTx = gasLimit * fees.maxFeePerGas;
    const covered: ChainClaim[] = [];
    for (const claim of fresh) {
      const amount = BigInt(claim.amount);
      const gasNeed = gasPerTx + (token ? 0n : amount);
      if (token && tokensLeft < amount) {
        fail(
          claim,
          `reward wallet ${wallet.address} lacks ${asset.symbol}: it holds ${tokensLeft > 0n ? tokensLeft : 0n} base units not yet promised, this claim needs ${amount}`,
        );
      } else if (gasLeft < gasNeed) {
        fail(
          claim,
          `reward wallet ${wallet.address} lacks gas: it holds ${gasLeft > 0n ? gasLeft : 0n} wei not yet promised, this transfer needs up to ${gasNeed}`,
        );
      } else {
        gasLeft -= gasNeed;
        if (token) tokensLeft -= amount;
        covered.push(claim);
      }
    }
    if (covered.length === 0) return;

    const signer = signerOf(wallet);
    const now = clock.now();
    await db.transaction().execute(async (trx) => {
      let nonce = await lockNextNonce(trx, wallet.id);
      // Checked again under the wallet's lock: another worker may have signed some of these meanwhile.
      const taken = await claimsWithLivePayout(
        trx,
        covered.map((c) => c.claimId),
      );
      const rows: NewPayout[] = [];
      for (const claim of covered) {
        if (taken.has(claim.claimId)) continue;
        const to = recipients.get(claim.accountId) as Address;
        const amount = BigInt(claim.amount);
        const raw = await signer.signTransaction({
          type: 'eip1559',
          chainId: network.chain_id,
          nonce,
          to: token ?? to,
          value: token ? 0n : amount,
          data: token
            ? encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] })
            : undefined,
          gas: gasLimit,
          maxFeePerGas: fees.maxFeePerGas,
          maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
        });
        rows.push({
          id: newId('cpo'),
          claim_id: claim.claimId,
          budget_id: budgetId,
          wallet_id: wallet.id,
          account_id: claim.accountId,
          nonce,
          to_address: to.toLowerCase(),
          amount: claim.amount,
          token_address: token,
          raw_tx: raw,
          tx_hash: keccak256(raw),
          gas_limit: Number(gasLimit),
          max_fee_per_gas: fees.maxFeePerGas.toString(),
          max_priority_fee_per_gas: fees.maxPriorityFeePerGas.toString(),
        });
        nonce += 1;
      }
      await insertPayouts(trx, rows, now);
      await setNextNonce(trx, wallet.id, nonce);
    });
    result.signed.push(...covered.map((c) => c.claimId));
  }

  /**
   * Hands claims to the chain: signs and stores each claim's transfer (idempotent by claim id: a
   * claim already in the outbox is not signed again), then broadcasts what is due.
   */
  async function payClaims(claims: ChainClaim[]): Promise<PayClaimsResult> {
    const result: PayClaimsResult = { signed: [], waitingForWallet: [], failed: [] };
    const byBudget = groupBy(claims, (claim) => claim.budgetId);
    // Budgets in id order, so two workers lock wallets' nonce rows in one order.
    for (const budgetId of [...byBudget.keys()].sort())
      await signForBudget(budgetId, byBudget.get(budgetId) ?? [], result);
    await options.holdAt?.('signed');
    await broadcastDue();
    return result;
  }

  /** Sends every payout due: signed and never sent, or sent a while ago and still without a receipt. */
  async function broadcastDue(): Promise<number> {
    let sent = 0;
    for (;;) {
      const now = clock.now();
      const due = await leaseDueBroadcasts(db, now, new Date(now.getTime() - rebroadcastAfterMs), batchSize);
      if (due.length === 0) break;
      const accepted: string[] = [];
      const refused: Array<{ id: string; error: string }> = [];
      // All at once (one JSON-RPC batch: a node queues nonces ahead of the next one), then, for a
      // node that refuses to queue (the dev chain's automine mines each transaction as it comes),
      // the refused ones again one after another in nonce order, wallets in parallel.
      const send = async (payout: (typeof due)[number]) => {
        const client = rpcClient(await networkOf(payout.network_id));
        return client.request({ method: 'eth_sendRawTransaction', params: [payout.raw_tx as Hex] }).then(
          () => null,
          (failure: unknown) => messageOf(failure),
        );
      };
      const answers = new Map<string, string | null>();
      const results = await Promise.all(due.map(send));
      due.forEach((payout, i) => answers.set(payout.id, results[i] ?? null));
      const byWallet = groupBy(
        due.filter((payout) => NONCE_AHEAD.test(answers.get(payout.id) ?? '')),
        (payout) => payout.wallet_id,
      );
      await Promise.all(
        [...byWallet.values()].map(async (payouts) => {
          for (const payout of payouts) answers.set(payout.id, await send(payout));
        }),
      );
      due.forEach((payout) => {
        const error = answers.get(payout.id);
        if (error === null || error === undefined || ALREADY_IN.test(error)) accepted.push(payout.id);
        else refused.push({ id: payout.id, error });
      });
      await recordBroadcasts(db, accepted, refused, now);
      sent += accepted.length;
      if (due.length < batchSize) break;
    }
    await options.holdAt?.('broadcast');
    return sent;
  }

  async function revertReason(
    client: PublicClient,
    payout: { token_address: string | null; to_address: string; amount: string },
    from: Address,
    blockNumber: bigint,
  ): Promise<string> {
    if (!payout.token_address) return 'reverted on chain';
    try {
      await client.simulateContract({
        address: payout.token_address as Address,
        abi: tokenAbi,
        functionName: 'transfer',
        args: [payout.to_address as Address, BigInt(payout.amount)],
        account: from,
        blockNumber: blockNumber - 1n,
      });
      return 'reverted on chain';
    } catch (error) {
      const reverted =
        error instanceof BaseError ? error.walk((e) => e instanceof ContractFunctionRevertedError) : null;
      if (reverted instanceof ContractFunctionRevertedError && reverted.data) {
        return `reverted on chain: ${reverted.data.errorName}(${(reverted.data.args ?? []).map(String).join(', ')})`;
      }
      return `reverted on chain: ${messageOf(error)}`.slice(0, 300);
    }
  }

  /**
   * Reads the receipts of broadcast payouts: a transaction with the network's confirmations settles
   * its payout (CONFIRMED, or REVERTED with the chain's reason) and reports the claim's outcome in
   * the same transaction; one long without a receipt is replaced with the same nonce and a higher fee.
   */
  async function confirm(): Promise<ClaimOutcome[]> {
    const open = await listBroadcastPayouts(db, batchSize);
    if (open.length === 0) return [];
    const now = clock.now();
    const settlements: Settlement[] = [];
    const reasons = new Map<string, string>();
    const stuck: typeof open = [];
    const byNetwork = groupBy(open, (payout) => payout.network_id);
    for (const [networkId, payouts] of byNetwork) {
      const network = await networkOf(networkId);
      const client = rpcClient(network);
      const latest = await client.getBlockNumber({ cacheTime: 0 }).catch((error: unknown) => {
        options.observe?.rpcError(network.name);
        throw error;
      });
      let lag = 0;
      const receipts = await Promise.all(
        payouts.map((p) =>
          Promise.all(
            p.hashes.map((hash) => client.getTransactionReceipt({ hash: hash as Hex }).catch(() => null)),
          ),
        ),
      );
      for (const [i, payout] of payouts.entries()) {
        const receipt = receipts[i]?.find((r) => r !== null) ?? null;
        if (!receipt) {
          if (
            payout.status === 'BROADCAST' &&
            now.getTime() - new Date(payout.current_signed_at).getTime() >= replaceAfterMs
          )
            stuck.push(payout);
          continue;
        }
        const have = latest - receipt.blockNumber + 1n;
        if (have < BigInt(network.confirmations)) {
          lag = Math.max(lag, Number(BigInt(network.confirmations) - have));
          continue;
        }
        options.observe?.confirmed(
          network.name,
          Math.max(0, (now.getTime() - new Date(payout.current_signed_at).getTime()) / 1000),
        );
        const ok = receipt.status === 'success';
        const error = ok ? null : await revertReason(client, payout, receipt.from, receipt.blockNumber);
        if (error) reasons.set(payout.id, error);
        settlements.push({
          payoutId: payout.id,
          status: ok ? 'CONFIRMED' : 'REVERTED',
          minedHash: receipt.transactionHash,
          blockNumber: Number(receipt.blockNumber),
          error,
        });
      }
      options.observe?.lag(network.name, lag);
    }
    let outcomes: ClaimOutcome[] = [];
    if (settlements.length > 0) {
      await db.transaction().execute(async (trx) => {
        const moved = await settlePayouts(trx, settlements, now);
        const claimOf = new Map(open.map((p) => [p.id, p.claim_id]));
        outcomes = settlements
          .filter((s) => moved.has(s.payoutId))
          .map((s) => ({
            claimId: claimOf.get(s.payoutId) as string,
            status: s.status === 'CONFIRMED' ? 'SUCCEEDED' : 'FAILED',
            reason: reasons.get(s.payoutId) ?? null,
            txHash: s.minedHash,
          }));
        if (outcomes.length > 0) await options.onSettled?.(trx as unknown as Transaction<DB>, outcomes);
        await options.holdAt?.('mined');
      });
    }
    for (const payout of stuck) await replace(payout.id, payout.network_id);
    return outcomes;
  }

  /** Signs the same transfer again with the same nonce and a higher fee; both hashes stay known. */
  async function replace(payoutId: string, networkId: string): Promise<void> {
    const network = await networkOf(networkId);
    const client = rpcClient(network);
    const quote = await currentFees(client);
    await db.transaction().execute(async (trx: Transaction<ChainDB>) => {
      const payout = await lockPayoutForReplacement(trx, payoutId);
      if (!payout) return;
      const wallet = await trx
        .selectFrom('reward_wallets')
        .selectAll()
        .where('id', '=', payout.wallet_id)
        .executeTakeFirstOrThrow();
      const bump = (value: string) => (BigInt(value) * feeBump + 99n) / 100n;
      const maxPriorityFeePerGas = [bump(payout.max_priority_fee_per_gas), quote.maxPriorityFeePerGas].reduce(
        (a, b) => (a > b ? a : b),
      );
      const maxFeePerGas = [bump(payout.max_fee_per_gas), quote.maxFeePerGas, maxPriorityFeePerGas].reduce(
        (a, b) => (a > b ? a : b),
      );
      const to = payout.to_address as Address;
      const token = payout.token_address as Address | null;
      const amount = BigInt(payout.amount);
      const raw = await signerOf(wallet).signTransaction({
        type: 'eip1559',
        chainId: network.chain_id,
        nonce: Number(payout.nonce),
        to: token ?? to,
        value: token ? 0n : amount,
        data: token
          ? encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] })
          : undefined,
        gas: BigInt(payout.gas_limit),
        maxFeePerGas,
        maxPriorityFeePerGas,
      });
      await recordReplacement(
        trx,
        payoutId,
        {
          rawTx: raw,
          hash: keccak256(raw),
          maxFeePerGas: maxFeePerGas.toString(),
          maxPriorityFeePerGas: maxPriorityFeePerGas.toString(),
        },
        clock.now(),
      );
    });
  }

  /** One round of upkeep: send what is due, settle what is mined. */
  async function runCycle(): Promise<ClaimOutcome[]> {
    await broadcastDue();
    const outcomes = await confirm();
    await broadcastDue();
    return outcomes;
  }

  return { payClaims, broadcastDue, confirm, runCycle };
}
