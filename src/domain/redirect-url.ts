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

/** Where the mission-page sign-in may return to: our own pages that use the session. */
export const RETURN_PATH_PREFIXES: readonly string[] = ['/app'];

/**
 * A page of this service to return to after the platform login (e.g. /app), as an absolute URL on
 * `base` (PUBLIC_BASE_URL); undefined if the value is not one. The value is normalised first
 * (WHATWG URL against our base: dot segments, %2e, slashes), then the *result* is checked (same
 * origin, path equal to or under an allowed prefix), and the checked result is what we answer, so
 * no later normalisation can turn it into another place (`/.//evil.example` is `//evil.example`).
 */
export function safeReturnUrl(
  raw: string | undefined,
  options: { base: string; fallback: string; prefixes?: readonly string[] },
): string | undefined {
  const value = raw === undefined || raw === '' ? options.fallback : raw;
  // Only a path is asked for; anything else (a scheme, //host, a backslash the URL parser reads
  // as a slash, a tab or newline it silently drops) is refused before parsing could be lenient.
  if (value.length > 512 || !value.startsWith('/') || UNSAFE.test(value)) return undefined;
  const base = new URL(options.base);
  let url: URL;
  try {
    url = new URL(value, base.origin);
  } catch {
    return undefined;
  }
  if (url.origin !== base.origin || url.username !== '' || url.password !== '') return undefined;
  const prefixes = options.prefixes ?? RETURN_PATH_PREFIXES;
  const under = prefixes.some((prefix) => url.pathname === prefix || url.pathname.startsWith(`${prefix}/`));
  if (!under) return undefined;
  return `${url.origin}${url.pathname}${url.search}`;
}

/** Query parameters that carry the outcome of a login back to the partner. */
export const OUTCOME_PARAMS = ['token', 'error'] as const;

/**
 * The partner's redirect URL with the outcome of the login: every `token` and `error` the URL
 * already had is removed (a registered URL cannot smuggle a token or an error of its own), then
 * ours is set.
 */
export function withOutcome(url: string, name: (typeof OUTCOME_PARAMS)[number], value: string): string {
  const out = new URL(url);
  for (const param of OUTCOME_PARAMS) out.searchParams.delete(param);
  out.searchParams.set(name, value);
  return out.href;
}

/** The URL with one query parameter set (replacing any of the same name). */
export function withParam(url: string, name: string, value: string): string {
  const out = new URL(url);
  out.searchParams.set(name, value);
  return out.href;
}
