// Stripe arithmetic of budgets: a budget's remaining amount is split into stripes (sub-allotments)
// so that a crowd completing one mission does not queue on a single row.
import { createHash } from 'node:crypto';

/** Splits `amount` over `stripes` stripes: equal shares, the remainder to the first ones. */
export function splitOverStripes(amount: bigint, stripes: number): bigint[] {
  const n = BigInt(stripes);
  const share = amount / n;
  const extra = amount % n;
  return Array.from({ length: stripes }, (_, i) => share + (BigInt(i) < extra ? 1n : 0n));
}

/** The stripe a user starts at: spreads a crowd evenly, and is the same for the same user. */
export function homeStripe(key: string, stripes: number): number {
  return createHash('sha256').update(key).digest().readUInt32BE(0) % stripes;
}
