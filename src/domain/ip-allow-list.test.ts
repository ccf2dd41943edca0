import { describe, expect, it } from 'vitest';
import { buildAllowList, canonicalCidr, isAddressAllowed } from './ip-allow-list.ts';

describe('canonicalCidr', () => {
  it('canonicalises addresses and prefixes', () => {
    expect(canonicalCidr('10.0.0.0/8')).toBe('10.0.0.0/8');
    expect(canonicalCidr('203.0.113.7')).toBe('203.0.113.7/32');
    expect(canonicalCidr('2001:DB8::/32')).toBe('2001:db8::/32');
    expect(canonicalCidr('::1')).toBe('::1/128');
  });

  it('refuses what is not an IP or CIDR', () => {
    for (const bad of [
      '',
      'localhost',
      '10.0.0.0/33',
      '10.0.0/8',
      '1.2.3.4/8/9',
      '::1/129',
      '10.0.0.0/-1',
      '10.0.0.0/ 8',
    ]) {
      expect(canonicalCidr(bad), bad).toBeUndefined();
    }
  });
});

describe('isAddressAllowed', () => {
  const list = buildAllowList(['10.1.0.0/16', '203.0.113.7/32', '2001:db8::/32']);

  it('allows addresses inside a listed range only', () => {
    expect(isAddressAllowed(list, '10.1.255.3')).toBe(true);
    expect(isAddressAllowed(list, '10.2.0.1')).toBe(false);
    expect(isAddressAllowed(list, '203.0.113.7')).toBe(true);
    expect(isAddressAllowed(list, '203.0.113.8')).toBe(false);
    expect(isAddressAllowed(list, '2001:db8:1::5')).toBe(true);
    expect(isAddressAllowed(list, '2001:db9::5')).toBe(false);
  });

  it('treats IPv4-mapped IPv6 addresses as IPv4', () => {
    expect(isAddressAllowed(list, '::ffff:10.1.2.3')).toBe(true);
    expect(isAddressAllowed(list, '::ffff:10.9.2.3')).toBe(false);
  });

  it('an empty list allows nobody, and garbage is never allowed', () => {
    expect(isAddressAllowed(buildAllowList([]), '127.0.0.1')).toBe(false);
    expect(isAddressAllowed(list, 'not-an-ip')).toBe(false);
  });
});
