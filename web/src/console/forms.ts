// Reading form fields: text lists (one per line), optional values, local date-times.

export function field(form: FormData, name: string): string {
  const value = form.get(name);
  return typeof value === 'string' ? value.trim() : '';
}

/** A select's value as the API's enum: the select offers only those values (the service checks anyway). */
export function choice<T extends string>(form: FormData, name: string): T {
  return field(form, name) as T;
}

/** One entry per line (or comma), blanks dropped: for allow-lists and redirect URLs. */
export function lines(text: string): string[] {
  return text
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** A datetime-local value ("2026-01-01T09:00") as an instant, read in this browser's time zone. */
export function localToInstant(value: string): string | undefined {
  if (value === '') return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** An instant as a datetime-local value in this browser's time zone. */
export function instantToLocal(instant: string | null): string {
  if (instant === null) return '';
  const date = new Date(instant);
  if (Number.isNaN(date.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** An instant as read in a time zone (a promotion's), in the console's language; as given if the zone is unknown. */
export function inZone(instant: string, timeZone: string, lang: string): string {
  try {
    return new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeStyle: 'short', timeZone }).format(
      new Date(instant),
    );
  } catch {
    return instant; // a zone this browser does not know
  }
}
