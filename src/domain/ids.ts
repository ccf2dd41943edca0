// Identifiers and secrets: random, with a type prefix so a leaked value is recognisable
// (ptn_ partner, key_ API key id, mrk_ API key secret, adm_ admin secret ...).
import { hash, randomBytes, randomFillSync, timingSafeEqual } from 'node:crypto';

export type IdPrefix = 'ptn' | 'key' | 'adc' | 'prm' | 'grp' | 'msn' | 'acc' | 'req' | (string & {});

const ID_BYTES = 16;
// Ids take their bytes from a pool filled 256 ids at a time, as crypto.randomUUID does: one call to
// the CSPRNG cost about 2.3 µs an id, a slice of the pool 0.1 µs (a claim id on every completion;
// docs/performance.md, "Eighth round"). Each byte is used once. Secrets (newSecret) are drawn on
// their own, so no secret's bytes wait in memory before it is made.
const idPool = Buffer.allocUnsafeSlow(ID_BYTES * 256);
let idPoolOffset = idPool.length;

/** A new id: prefix, underscore, 16 random bytes in base64url (128 bits). */
export function newId(prefix: IdPrefix): string {
  if (idPoolOffset === idPool.length) {
    randomFillSync(idPool);
    idPoolOffset = 0;
  }
  const bytes = idPool.toString('base64url', idPoolOffset, idPoolOffset + ID_BYTES);
  idPoolOffset += ID_BYTES;
  return `${prefix}_${bytes}`;
}

/** A new secret: prefix, underscore, 32 random bytes in base64url (256 bits). */
export function newSecret(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}

// crypto.hash (Node 20.12+) is one call into C++ with no Hash object: about a third of the time of
// createHash().update().digest() (on every partner call; docs/performance.md, "Fourth round").
export function sha256Hex(value: string): string {
  return hash('sha256', value, 'hex');
}

const LOWER_HEX = /^(?:[0-9a-f]{2})+$/;

/**
 * Compares two hex digests of equal length in constant time: every character is looked at whatever
 * differs. Lower-case digests (what sha256Hex writes) are compared as text, without decoding both
 * into Buffers on every call; any other spelling as the bytes it names (hex decoding ignores case).
 */
export function digestsEqual(a: string, b: string): boolean {
  if (a.length === b.length && LOWER_HEX.test(a) && LOWER_HEX.test(b)) {
    let difference = 0;
    for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
    return difference === 0;
  }
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}
