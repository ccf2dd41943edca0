// Identifiers and secrets: random, with a type prefix so a leaked value is recognisable
// (ptn_ partner, key_ API key id, mrk_ API key secret, adm_ admin secret ...).
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export type IdPrefix = 'ptn' | 'key' | 'adc' | 'prm' | 'grp' | 'msn' | 'acc' | 'req' | (string & {});

/** A new id: prefix, underscore, 16 random bytes in base64url (128 bits). */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBytes(16).toString('base64url')}`;
}

/** A new secret: prefix, underscore, 32 random bytes in base64url (256 bits). */
export function newSecret(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** Compares two hex digests of equal length in constant time. */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}
