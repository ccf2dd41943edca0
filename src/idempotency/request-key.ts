// The Idempotency-Key header and the fingerprint of a request, without I/O: what makes two
// requests "the same" (docs/idempotency.md).
import { sha256Hex } from '../domain/ids.ts';

/** Longest key accepted (Stripe's bound). */
export const MAX_KEY_LENGTH = 255;

// Printable ASCII without space, '"', ',' and '\': a bare token, or the same inside the quotes of
// a Structured Fields string (the IETF draft writes the header as `Idempotency-Key: "..."`). The
// comma is out because Node joins a repeated header with ', '.
const KEY = /^[\x21\x23-\x2b\x2d-\x5b\x5d-\x7e]+$/;

export type ParsedKey = { ok: true; key: string } | { ok: false; problem: string };

/** The key of an Idempotency-Key header value (bare or as a quoted sf-string), or why it is refused. */
export function parseIdempotencyKey(raw: string | string[]): ParsedKey {
  if (Array.isArray(raw)) return { ok: false, problem: 'send one Idempotency-Key header, not several' };
  const quoted = raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"');
  const key = quoted ? raw.slice(1, -1) : raw;
  if (key.length === 0) return { ok: false, problem: 'the Idempotency-Key header is empty' };
  if (key.length > MAX_KEY_LENGTH) {
    return { ok: false, problem: `an Idempotency-Key has at most ${MAX_KEY_LENGTH} characters` };
  }
  if (!KEY.test(key)) {
    return {
      ok: false,
      problem: 'an Idempotency-Key is printable ASCII without spaces, quotes, commas or backslashes',
    };
  }
  return { ok: true, key };
}

/** JSON with every object's keys sorted, so that key order and spacing do not change the fingerprint. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  // Built by appending, without the intermediate arrays of map/filter/join: it runs on every keyed
  // request's body.
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + canonicalJson(value[i]);
    return `${out}]`;
  }
  const object = value as Record<string, unknown>;
  let out = '{';
  for (const key of Object.keys(object).sort()) {
    const field = object[key];
    if (field === undefined) continue;
    out += `${out.length === 1 ? '' : ','}${JSON.stringify(key)}:${canonicalJson(field)}`;
  }
  return `${out}}`;
}

/** SHA-256 (hex) of the canonical request: method, path (without the query) and body. */
export function requestFingerprint(method: string, url: string, body: unknown): string {
  const path = url.split('?', 1)[0] ?? url;
  return sha256Hex(`${method.toUpperCase()}\n${path}\n${body === undefined ? '' : canonicalJson(body)}`);
}
