// Pure formatting for both pages: amounts as decimal strings (never floats), gauges, dates.

/**
 * An amount (a decimal string already in whole units, e.g. "12.5") shown with exactly the asset's
 * decimals and thousands separators: ("1234.5", 2) -> "1,234.50". Strings all the way, so 36
 * decimals and 30-digit totals stay exact. Extra fractional digits are kept, never rounded away.
 */
export function formatUnits(amount: string, decimals: number): string {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(amount.trim());
  if (!match) return amount;
  const [, sign = '', whole = '0', fraction = ''] = match;
  const wholeText = whole.replace(/^0+(?=\d)/, '').replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const places = Math.max(decimals, fraction.replace(/0+$/, '').length);
  const fractionText = fraction.padEnd(places, '0').slice(0, places);
  return places > 0 ? `${sign}${wholeText}.${fractionText}` : `${sign}${wholeText}`;
}

/** Share of a gauge filled, 0..1; undefined when the mission has no target to measure against. */
export function gaugeRatio(current: number | null, target: number | null): number | undefined {
  if (target === null || target <= 0) return undefined;
  const value = current ?? 0;
  return Math.min(1, Math.max(0, value / target));
}

/** "3 / 5" or "3" (no target) or "not started". */
export function gaugeLabel(current: number | null, target: number | null): string {
  if (current === null && target === null) return 'not started';
  if (target === null) return String(current);
  return `${current ?? 0} / ${target}`;
}

/** The UTC calendar day of an instant, "YYYY-MM-DD". */
export function utcDay(instant: string | Date): string {
  return (typeof instant === 'string' ? new Date(instant) : instant).toISOString().slice(0, 10);
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function formatDateTime(instant: string | null | undefined): string {
  if (!instant) return '—';
  const date = new Date(instant);
  return Number.isNaN(date.getTime()) ? instant : dateTime.format(date);
}

/** A period key as people say it: ONCE -> "one time", W2026-11-16 -> "week of 2026-11-16". */
export function describePeriod(periodKey: string): string {
  if (periodKey === 'ONCE') return 'one time';
  if (periodKey.startsWith('W')) return `week of ${periodKey.slice(1)}`;
  return periodKey;
}

/** Adds decimal strings exactly (non-negative, whole units): for chart totals. */
export function addDecimals(a: string, b: string): string {
  const [aw = '0', af = ''] = a.split('.');
  const [bw = '0', bf = ''] = b.split('.');
  const places = Math.max(af.length, bf.length);
  const sum = BigInt(aw + af.padEnd(places, '0')) + BigInt(bw + bf.padEnd(places, '0'));
  if (places === 0) return sum.toString();
  const digits = sum.toString().padStart(places + 1, '0');
  const fraction = digits.slice(-places).replace(/0+$/, '');
  const whole = digits.slice(0, -places);
  return fraction === '' ? whole : `${whole}.${fraction}`;
}

/** A decimal string as a number, only for drawing (chart heights); never for showing or adding money. */
export function plotValue(amount: string): number {
  const value = Number(amount);
  return Number.isFinite(value) ? value : 0;
}

/** Most fraction digits an amount shows before "show all" (an 18-decimal token's dust stays readable). */
export const SHORT_FRACTION_DIGITS = 6;

export interface AmountText {
  /** For reading: grouped in the reader's locale, trailing zeros dropped, at most 6 fraction digits. */
  short: string;
  /** Every digit the amount has, grouped in the reader's locale. */
  full: string;
  /** The short form cut digits off (the full one says more). */
  cut: boolean;
}

/** Intl.NumberFormat formats a decimal string exactly (ECMA-402 NumberFormat v3); no float in between. */
type StringNumberFormat = { format(value: string): string };

function numberFormat(lang: string, maxFraction: number): StringNumberFormat {
  // roundingMode 'trunc': a short form never shows more than was paid.
  return new Intl.NumberFormat(lang, {
    minimumFractionDigits: 0,
    maximumFractionDigits: maxFraction,
    roundingMode: 'trunc',
  } as Intl.NumberFormatOptions) as unknown as StringNumberFormat;
}

/**
 * An amount in whole units (a decimal string, e.g. "1234567.891") as the reader's locale writes it,
 * the same on every page: grouping, no trailing zeros, at most 6 fraction digits, except that an
 * amount below 0.000001 keeps its first two significant digits rather than reading as 0. `decimals`
 * (the asset's) bounds the digits; the full form keeps them all.
 * ("1234567.891", 18, 'en') -> 1,234,567.891; ("2.500000000000000000", 18, 'ko') -> 2.5.
 */
export function amountText(amount: string, decimals: number, lang: string): AmountText {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(amount.trim());
  if (!match) return { short: amount, full: amount, cut: false };
  const [, sign = '', whole = '0', rawFraction = ''] = match;
  const fraction = rawFraction.replace(/0+$/, '');
  const text = `${sign}${whole}${fraction ? `.${fraction}` : ''}`;
  const full = numberFormat(lang, Math.min(100, fraction.length)).format(text);
  let places = Math.min(fraction.length, SHORT_FRACTION_DIGITS, Math.max(0, decimals) || fraction.length);
  if (/^0*$/.test(whole) && /^0*$/.test(fraction.slice(0, places)) && fraction !== '') {
    // Dust: keep two significant digits (0.0000000012) rather than "0".
    const firstDigit = fraction.search(/[1-9]/);
    places = Math.min(fraction.length, firstDigit + 2);
  }
  const short = numberFormat(lang, places).format(text);
  return { short, full, cut: places < fraction.length };
}
