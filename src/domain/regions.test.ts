import { describe, expect, it } from 'vitest';
import { canonicalRegion, REGION_COUNT } from './regions.ts';

describe('canonicalRegion', () => {
  it('knows all 249 assigned codes', () => {
    expect(REGION_COUNT).toBe(249);
  });

  it('accepts assigned codes in any case and upper-cases them', () => {
    expect(canonicalRegion('KR')).toBe('KR');
    expect(canonicalRegion('jp')).toBe('JP');
    expect(canonicalRegion(' tw ')).toBe('TW');
  });

  it('refuses unassigned, user-assigned, three-letter and non-letter codes', () => {
    for (const bad of ['XX', 'ZZ', 'EU', 'UK', 'KOR', 'K', '', '12', 'K1', 'ＫＲ']) {
      expect(canonicalRegion(bad), bad).toBeUndefined();
    }
  });
});
