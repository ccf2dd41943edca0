// Where a login may send the browser back to. No open redirect: the URL must parse, use http(s),
// carry no credentials or fragment, and equal a registered URL in scheme, host, port and path;
// only the query may vary. The answer is the parsed, normalised URL, never the raw input.

/** The comparable form of a URL: scheme, host (with a non-default port) and path. */
// Control characters, DEL and backslashes: URL parsing is lenient with them; no partner needs them.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f\\]/;

export function comparable(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}

export function matchRedirectUrl(registered: readonly string[], raw: string): URL | undefined {
  if (raw.length === 0 || raw.length > 2048) return undefined;
  if (UNSAFE.test(raw)) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  if (url.username !== '' || url.password !== '' || url.hash !== '') return undefined;
  const candidate = comparable(url);
  return registered.includes(candidate) ? url : undefined;
}

/** A path of this service to return to after the platform login (e.g. /app); undefined if not one. */
export function matchReturnPath(raw: string | undefined, fallback: string): string | undefined {
  const value = raw === undefined || raw === '' ? fallback : raw;
  if (value.length > 512 || !value.startsWith('/') || value.startsWith('//') || UNSAFE.test(value)) {
    return undefined;
  }
  const base = new URL('http://service.invalid');
  const url = new URL(value, base);
  if (url.origin !== base.origin) return undefined;
  return `${url.pathname}${url.search}`;
}

/** The URL with one query parameter set (replacing any of the same name). */
export function withParam(url: string, name: string, value: string): string {
  const out = new URL(url);
  out.searchParams.set(name, value);
  return out.href;
}
