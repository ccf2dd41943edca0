// Step 1 of the chain payout, SIGN: a budget's claims become signed transactions with the wallet's
// next nonces, stored in one database transaction (state SIGNED); nothing is sent here.
import { encodeFunctionData, erc20Abi, keccak256 } from 'viem';
import type { Address, PublicClient } from 'viem';
import type { Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import { newId } from '../domain/ids.ts';
import { notAChainBudget, rewardWalletNotFound } from '../error-factories.ts';
import type { ChainClaim, PayClaimsResult } from './payout-types.ts';
import { NATIVE_TRANSFER_GAS, TOKEN_TRANSFER_GAS } from './payout-types.ts';
import type { PayoutContext } from './payout-context.ts';
import { claimsWithLivePayout, insertPayouts, unsettledOutflows } from './payout-store.ts';
import {
  findBudgetChainAsset,
  findUserWallets,
  findWalletOfBudget,
  haltWallet,
  highestSettledNonce,
  lockNextNonce,
  setNextNonce,
  unsettleLostPayouts,
} from './store.ts';
import type { NewPayout } from './payout-store.ts';
import type { BudgetChainRow, WalletRow } from './store.ts';

export interface Fees {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

export async function currentFees(client: PublicClient): Promise<Fees> {
  const fees = await client.estimateFeesPerGas({ type: 'eip1559', chain: undefined });
  return { maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas };
}

/** The transfer of a payout as an EIP-1559 transaction (the same for a first signature and a replacement). */
export function transferTransaction(input: {
  chainId: number;
  nonce: number;
  to: Address;
  token: Address | null;
  amount: bigint;
  gas: bigint;
  fees: Fees;
}) {
  return {
    type: 'eip1559' as const,
    chainId: input.chainId,
    nonce: input.nonce,
    to: input.token ?? input.to,
    value: input.token ? 0n : input.amount,
    data: input.token
      ? encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [input.to, input.amount] })
      : undefined,
    gas: input.gas,
    maxFeePerGas: input.fees.maxFeePerGas,
    maxPriorityFeePerGas: input.fees.maxPriorityFeePerGas,
  };
}

/** What the chain says of a wallet before signing: one fee quote, its balances and nonce at one head. */
interface ChainView {
  fees: Fees;
  gasBalance: bigint;
  tokenBalance: bigint;
  /** The wallet's transactions mined so far (the next nonce the chain expects). */
  minedNonce: number;
  /** The head these were read at. */
  block: bigint;
}

async function readChain(client: PublicClient, wallet: WalletRow, token: Address | null): Promise<ChainView> {
  const address = wallet.address as Address;
  const block = await client.getBlockNumber({ cacheTime: 0 });
  const [fees, gasBalance, tokenBalance, minedNonce] = await Promise.all([
    currentFees(client),
    client.getBalance({ address, blockNumber: block }),
    token
      ? client.readContract({
          address: token,
          abi: erc20Abi,
          functionName: 'balanceOf',
          args: [address],
          blockNumber: block,
        })
      : Promise.resolve(0n),
    client.getTransactionCount({ address, blockNumber: block }),
  ]);
  return { fees, gasBalance, tokenBalance, minedNonce, block };
}

/**
 * Signs and stores the claims of one budget. Balances are checked first so that a wallet short of
 * tokens or gas fails claims with a reason instead of signing transactions that would revert or
 * never be accepted; each payout counts once: one already mined is in the balance read (the chain's
 * nonce is past it), one not yet mined is subtracted from it.
 */
export async function signForBudget(
  ctx: PayoutContext,
  budgetId: string,
  claims: ChainClaim[],
  result: PayClaimsResult,
): Promise<void> {
  const { db, options } = ctx;
  const fail = (claim: ChainClaim, reason: string) =>
    result.failed.push({ claimId: claim.claimId, status: 'FAILED', reason, txHash: null });
  const asset = await findBudgetChainAsset(db, budgetId);
  if (!asset) return claims.forEach((c) => fail(c, notAChainBudget(budgetId).message));
  const wallet = await findWalletOfBudget(db, budgetId);
  if (!wallet) return claims.forEach((c) => fail(c, rewardWalletNotFound(budgetId).message));
  const network = await ctx.networkOf(wallet.network_id);
  const waiting = (c: ChainClaim) => result.waitingForNetwork.push(c.claimId);
  if (network.disabled_at || wallet.halted_at) return claims.forEach(waiting);
  const recipients = await findUserWallets(
    db,
    [...new Set(claims.map((c) => c.accountId))],
    Number(network.chain_id),
  );
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

  const token = asset.token_address as Address | null;
  const view = await ctx.onNetwork(network, (client) => readChain(client, wallet, token));
  if (!view) return fresh.forEach(waiting);
  options.observe?.balances(
    wallet.address,
    view.gasBalance,
    token ? { symbol: asset.symbol, decimals: asset.decimals, balance: view.tokenBalance } : undefined,
  );
  if (await lostConfirmedTransfers(ctx, wallet, network.name, view.minedNonce)) return fresh.forEach(waiting);
  const left = await leftToPromise(ctx, wallet, token, view);
  const covered = coveredClaims(fresh, left, view.fees, asset, wallet, fail);
  if (covered.length === 0) return;
  await storeSigned(
    ctx,
    { budgetId, wallet, chainId: Number(network.chain_id), token, recipients, fees: view.fees },
    covered,
  );
  result.signed.push(...covered.map((c) => c.claimId));
}

/**
 * A reorg deeper than the confirmations: the chain's nonce is below a payout the outbox settled,
 * so a transfer it confirmed is gone. The wallet stops (nothing more is signed or sent from it)
 * and the operator is told (docs/operations.md, "A reorg deeper than the confirmations").
 */
export async function lostConfirmedTransfers(
  ctx: PayoutContext,
  wallet: WalletRow,
  networkName: string,
  minedNonce: number,
): Promise<boolean> {
  const settled = await highestSettledNonce(ctx.db, wallet.id);
  if (settled < minedNonce) return false;
  // Read again after the database: another worker may have settled a payout mined after the first
  // read. Anything settled by now was mined before this read, so a nonce still behind is a loss.
  const network = await ctx.networkOf(wallet.network_id);
  const now = await ctx.onNetwork(network, (client) =>
    client.getTransactionCount({ address: wallet.address as Address, blockTag: 'latest' }),
  );
  if (now === undefined) return true;
  if (settled < now) return false;
  minedNonce = now;
  const reason = `the chain's nonce of ${wallet.address} on ${networkName} is ${minedNonce} but the outbox settled nonce ${settled}: a reorg deeper than the confirmations removed settled transfers`;
  // The transfers the chain lost are no longer settled: their payouts wait to be sent again and
  // their claims are re-opened, in the transaction that halts the wallet (docs/payout.md).
  const at = ctx.clock.now();
  const halted = await ctx.db.transaction().execute(async (trx) => {
    const stopped = await haltWallet(trx, wallet.id, reason, at);
    const lost = await unsettleLostPayouts(trx, wallet.id, minedNonce, at);
    if (lost.length > 0)
      await ctx.options.onReopened?.(
        trx as unknown as Transaction<DB>,
        lost.map((p) => p.claim_id),
        at,
      );
    return stopped;
  });
  if (halted) {
    ctx.options.log?.warn(`reward wallet ${wallet.id} halted: ${reason}`);
    ctx.options.observe?.walletHalted?.(wallet.address);
  }
  return true;
}

interface Left {
  gas: bigint;
  tokens: bigint;
}

/** What the wallet holds that no payout still to be mined has promised. */
async function leftToPromise(
  ctx: PayoutContext,
  wallet: WalletRow,
  token: Address | null,
  view: ChainView,
): Promise<Left> {
  const pending = await unsettledOutflows(ctx.db, wallet.id, view.minedNonce);
  return {
    gas: view.gasBalance - pending.gasWei - (pending.tokens.get('') ?? 0n),
    tokens: token ? view.tokenBalance - (pending.tokens.get(token) ?? 0n) : 0n,
  };
}

function coveredClaims(
  fresh: ChainClaim[],
  left: Left,
  fees: Fees,
  asset: BudgetChainRow,
  wallet: WalletRow,
  fail: (claim: ChainClaim, reason: string) => void,
): ChainClaim[] {
  const token = asset.token_address;
  const gasPerTx = (token ? TOKEN_TRANSFER_GAS : NATIVE_TRANSFER_GAS) * fees.maxFeePerGas;
  let { gas, tokens } = left;
  const covered: ChainClaim[] = [];
  for (const claim of fresh) {
    const amount = BigInt(claim.amount);
    const gasNeed = gasPerTx + (token ? 0n : amount);
    if (token && tokens < amount) {
      fail(
        claim,
        `reward wallet ${wallet.address} lacks ${asset.symbol}: it holds ${tokens > 0n ? tokens : 0n} base units not yet promised, this claim needs ${amount}`,
      );
    } else if (gas < gasNeed) {
      fail(
        claim,
        `reward wallet ${wallet.address} lacks gas: it holds ${gas > 0n ? gas : 0n} wei not yet promised, this transfer needs up to ${gasNeed}`,
      );
    } else {
      gas -= gasNeed;
      if (token) tokens -= amount;
      covered.push(claim);
    }
  }
  return covered;
}

/** Signs the covered claims with the wallet's next nonces and stores them, under the wallet's nonce lock. */
async function storeSigned(
  ctx: PayoutContext,
  batch: {
    budgetId: string;
    wallet: WalletRow;
    chainId: number;
    token: Address | null;
    recipients: Map<string, string>;
    fees: Fees;
  },
  covered: ChainClaim[],
): Promise<void> {
  const { wallet, token, fees } = batch;
  const signer = ctx.signerOf(wallet);
  const gas = token ? TOKEN_TRANSFER_GAS : NATIVE_TRANSFER_GAS;
  const now = ctx.clock.now();
  await ctx.db.transaction().execute(async (trx) => {
    let nonce = await lockNextNonce(trx, wallet.id);
    // Checked again under the wallet's lock: another worker may have signed some of these meanwhile.
    const taken = await claimsWithLivePayout(
      trx,
      covered.map((c) => c.claimId),
    );
    const rows: NewPayout[] = [];
    for (const claim of covered) {
      if (taken.has(claim.claimId)) continue;
      const to = batch.recipients.get(claim.accountId) as Address;
      const amount = BigInt(claim.amount);
      const raw = await signer.signTransaction(
        transferTransaction({ chainId: batch.chainId, nonce, to, token, amount, gas, fees }),
      );
      rows.push({
        id: newId('cpo'),
        claim_id: claim.claimId,
        budget_id: batch.budgetId,
        wallet_id: wallet.id,
        account_id: claim.accountId,
        nonce,
        to_address: to.toLowerCase(),
        amount: claim.amount,
        token_address: token,
        raw_tx: raw,
        tx_hash: keccak256(raw),
        gas_limit: Number(gas),
        max_fee_per_gas: fees.maxFeePerGas.toString(),
        max_priority_fee_per_gas: fees.maxPriorityFeePerGas.toString(),
      });
      nonce += 1;
    }
    await insertPayouts(trx, rows, now);
    await setNextNonce(trx, wallet.id, nonce);
  });
}
