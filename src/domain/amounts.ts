// Amounts: integers of an asset's base units (bigint here, numeric(78,0) in PostgreSQL), written in
// JSON as decimal strings in whole units scaled by the asset's decimals. Never a float.

/** The largest amount numeric(78,0) holds. */
export const MAX_BASE_UNITS = 10n ** 78n - 1n;
export const MAX_DECIMALS = 36;

export class AmountError extends Error {}

/** "12.5" with 2 decimals -> 1250n. Refuses signs, exponents, spaces and excess fractional digits. */
export function parseAmount(text: string, decimals: number, options: { allowZero?: boolean } = {}): bigint {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > MAX_DECIMALS)
    throw new AmountError(`decimals must be 0..${MAX_DECIMALS}`);
  const match = /^(\d{1,100})(?:\.(\d{1,40}))?$/.exec(text);
  if (!match) throw new AmountError(`'${text.slice(0, 40)}' is not a decimal amount such as 12.5`);
  const whole = match[1] as string;
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  if (fraction.length > decimals) {
    throw new AmountError(
      `'${text.slice(0, 40)}' has more fractional digits than the asset's ${decimals} decimals`,
    );
  }
  const units = BigInt(whole) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0');
  if (units > MAX_BASE_UNITS) throw new AmountError(`'${text.slice(0, 40)}' is too large`);
  if (units === 0n && !options.allowZero) throw new AmountError('the amount must be greater than zero');
  return units;
}

/** 1250n with 2 decimals -> "12.5"; no trailing zeros, no exponent. */
export function formatAmount(units: bigint | string, decimals: number): string {
  const value = typeof units === 'bigint' ? units : BigInt(units);
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = decimals === 0 ? '' : digits.slice(digits.length - decimals).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}
