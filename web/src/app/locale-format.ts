// Numbers, amounts and dates for the page's language, with Intl. Amounts are decimal strings and
// stay strings: Intl.NumberFormat formats a decimal string exactly (no float in between).

const DECIMAL = /^-?\d+(?:\.\d+)?$/;

/** Intl.NumberFormat.format takes a decimal string exactly (ECMA-402 NumberFormat v3). */
type StringNumberFormat = { format(value: string | number): string };

/**
 * An amount in whole units ("1234.5") for `lang`: at least the asset's decimals, never fewer than
 * the amount has (nothing rounded away): ("1234.5", 2, 'en') → "1,234.50".
 */
export function formatAmount(amount: string, lang: string, decimals = 0): string {
  const text = amount.trim();
  if (!DECIMAL.test(text)) return amount;
  const fraction = text.split('.')[1]?.replace(/0+$/, '').length ?? 0;
  const min = Math.min(100, Math.max(0, decimals));
  const max = Math.min(100, Math.max(min, fraction));
  const format = new Intl.NumberFormat(lang, {
    minimumFractionDigits: min,
    maximumFractionDigits: max,
  }) as unknown as StringNumberFormat;
  return format.format(text);
}

export function formatCount(value: number, lang: string): string {
  return new Intl.NumberFormat(lang).format(value);
}

export function formatDateTime(instant: string | null | undefined, lang: string): string {
  if (!instant) return '—';
  const date = new Date(instant);
  if (Number.isNaN(date.getTime())) return instant;
  return new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeStyle: 'short' }).format(date);
}

/** A calendar date "YYYY-MM-DD" (a period, a check-in day) as the language writes it. */
export function formatDay(day: string, lang: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!match) return day;
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  return new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeZone: 'UTC' }).format(date);
}

/** A month "YYYY-MM" as the language writes it (November 2026, 2026년 11월, 2026年11月). */
export function formatMonth(month: string, lang: string): string {
  const match = /^(\d{4})-(\d{2})$/.exec(month);
  if (!match) return month;
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, 1));
  return new Intl.DateTimeFormat(lang, { year: 'numeric', month: 'long', timeZone: 'UTC' }).format(date);
}
