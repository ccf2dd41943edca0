// Step 4 of the chain payout, REPLACE: a BROADCAST payout long without a receipt is signed again
// with the same nonce and a higher fee (at least the bump, at least the current quote); both hashes
// stay known, whichever is mined settles it, and the nonce lets only one of them ever be mined.
import { keccak256 } from 'viem';
import type { Address } from 'viem';
import type { PayoutContext } from './payout-context.ts';
import { currentFees, transferTransaction } from './payout-sign.ts';
import { lockPayoutForReplacement, recordReplacement } from './payout-store.ts';
import { findWallet } from './store.ts';

export async function replace(ctx: PayoutContext, payoutId: string, networkId: string): Promise<void> {
  const network = await ctx.networkOf(networkId);
  const quote = await ctx.onNetwork(network, (client) => currentFees(client));
  if (!quote) return;
  const feeBump = BigInt(100 + (ctx.options.feeBumpPercent ?? 25));
  const max = (...values: bigint[]) => values.reduce((a, b) => (a > b ? a : b));
  await ctx.db.transaction().execute(async (trx) => {
    const payout = await lockPayoutForReplacement(trx, payoutId);
    if (!payout) return;
    const wallet = await findWallet(trx, payout.wallet_id);
    if (!wallet || wallet.halted_at) return;
    const bump = (value: string) => (BigInt(value) * feeBump + 99n) / 100n;
    const maxPriorityFeePerGas = max(bump(payout.max_priority_fee_per_gas), quote.maxPriorityFeePerGas);
    const maxFeePerGas = max(bump(payout.max_fee_per_gas), quote.maxFeePerGas, maxPriorityFeePerGas);
    const raw = await ctx.signerOf(wallet).signTransaction(
      transferTransaction({
        chainId: Number(network.chain_id),
        nonce: Number(payout.nonce),
        to: payout.to_address as Address,
        token: payout.token_address as Address | null,
        amount: BigInt(payout.amount),
        gas: BigInt(payout.gas_limit),
        fees: { maxFeePerGas, maxPriorityFeePerGas },
      }),
    );
    await recordReplacement(
      trx,
      payoutId,
      {
        rawTx: raw,
        hash: keccak256(raw),
        maxFeePerGas: maxFeePerGas.toString(),
        maxPriorityFeePerGas: maxPriorityFeePerGas.toString(),
      },
      ctx.clock.now(),
    );
  });
}
