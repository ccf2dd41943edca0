import { timingSafeEqual } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { digestsEqual, newId, sha256Hex } from './ids.ts';

// digestsEqual as it was (Buffers and timingSafeEqual): the text comparison of lower-case digests
// must give the same answer for any two strings.
function reference(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}

const hexChar = fc.constantFrom(...'0123456789abcdefABCDEFxz'.split(''));
const hexText = fc.array(hexChar, { maxLength: 8 }).map((chars) => chars.join(''));

describe('digestsEqual', () => {
  it('answers as the byte comparison does, for lower, upper and broken hex', () => {
    fc.assert(
      fc.property(hexText, hexText, (a, b) => {
        expect(digestsEqual(a, b)).toBe(reference(a, b));
        expect(digestsEqual(a, a.toUpperCase())).toBe(reference(a, a.toUpperCase()));
      }),
      { numRuns: 5000 },
    );
  });

  it('matches a digest with itself and not with one a character off', () => {
    const digest = sha256Hex('mrk_test_key');
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(digestsEqual(digest, sha256Hex('mrk_test_key'))).toBe(true);
    expect(digestsEqual(digest, `${digest.slice(0, 63)}${digest[63] === '0' ? '1' : '0'}`)).toBe(false);
    expect(digestsEqual('', '')).toBe(false);
  });
});

describe('newId', () => {
  it('answers the prefix and 16 bytes in base64url, never the same bytes twice across pool refills', () => {
    const ids = Array.from({ length: 2_000 }, () => newId('clm'));
    for (const id of ids) {
      expect(id).toMatch(/^clm_[A-Za-z0-9_-]{22}$/);
      expect(Buffer.from(id.slice(4), 'base64url')).toHaveLength(16);
    }
    expect(new Set(ids).size).toBe(ids.length);
    // Consecutive ids share no byte run: each takes fresh bytes (a refill every 256 ids).
    const halves = new Set(ids.flatMap((id) => [id.slice(4, 15), id.slice(15)]));
    expect(halves.size).toBe(ids.length * 2);
  });
});
