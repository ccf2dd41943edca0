import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, requestFingerprint } from './request-key.ts';

// The first version, kept as the reference: the faster one must say exactly the same.
function reference(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(reference).join(',')}]`;
  const entries = Object.keys(value as Record<string, unknown>)
    .sort()
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${reference((value as Record<string, unknown>)[k])}`);
  return `{${entries.join(',')}}`;
}

describe('canonicalJson', () => {
  it('sorts keys at every depth and leaves out undefined fields', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: null, y: 'x' }], c: undefined } })).toBe(
      '{"a":{"d":[1,{"y":"x","z":null}]},"b":1}',
    );
    expect(canonicalJson([])).toBe('[]');
    expect(canonicalJson({})).toBe('{}');
    expect(canonicalJson({ a: undefined })).toBe('{}');
    expect(canonicalJson({ a: undefined, b: 2 })).toBe('{"b":2}');
  });

  it('says what the first version said, for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalJson(value)).toBe(reference(value));
      }),
      { numRuns: 500 },
    );
  });

  it('gives the same fingerprint whatever the key order and spacing', () => {
    const a = requestFingerprint(
      'post',
      '/v1/achieve?x=1',
      JSON.parse('{"b": 1, "a": [2, {"d": 3, "c": 4}]}'),
    );
    const b = requestFingerprint('POST', '/v1/achieve', JSON.parse('{"a":[2,{"c":4,"d":3}],"b":1}'));
    expect(a).toBe(b);
    expect(requestFingerprint('POST', '/v1/achieve', { a: 1 })).not.toBe(b);
  });
});
