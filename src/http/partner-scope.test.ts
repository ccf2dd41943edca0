import { BlockList } from 'node:net';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildAllowList, isAddressAllowed } from '../domain/ip-allow-list.ts';
import { MAX_ALLOW_LIST_ANSWERS, allowedByPartner } from './partner-scope.ts';

const partner = (allowed: string[]) => ({ id: 'ptn_1', allowed_ips: allowed });

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the partner allow-list answer, kept per address', () => {
  it('asks the BlockList once for an address seen again on the same partner row', () => {
    const check = vi.spyOn(BlockList.prototype, 'check');
    const row = partner(['10.0.0.0/8']);
    expect(allowedByPartner(row, '10.1.2.3')).toBe(true);
    expect(allowedByPartner(row, '10.1.2.3')).toBe(true);
    expect(allowedByPartner(row, '192.0.2.1')).toBe(false);
    expect(allowedByPartner(row, '192.0.2.1')).toBe(false);
    expect(check).toHaveBeenCalledTimes(2);
  });

  it('follows a changed allow-list at once: a new row is asked afresh', () => {
    expect(allowedByPartner(partner(['10.0.0.0/8']), '10.1.2.3')).toBe(true);
    expect(allowedByPartner(partner(['192.0.2.0/24']), '10.1.2.3')).toBe(false);
    expect(allowedByPartner(partner([]), '10.1.2.3')).toBe(false);
  });

  it('answers exactly as the list does, for IPv4, IPv6 and IPv4-mapped addresses', () => {
    const cidrs = ['10.0.0.0/8', '192.0.2.7/32', '2001:db8::/32', '::1/128'];
    const row = partner(cidrs);
    const list = buildAllowList(cidrs);
    const address = fc.oneof(
      fc.ipV4(),
      fc.ipV6(),
      fc.ipV4().map((ip) => `::ffff:${ip}`),
      fc.constantFrom('10.255.255.255', '11.0.0.0', '192.0.2.7', '192.0.2.8', '::1', '::2', 'not-an-ip', ''),
    );
    fc.assert(
      fc.property(fc.array(address, { maxLength: 20 }), (ips) => {
        // Each address twice: the kept answer must be the list's too.
        for (const ip of [...ips, ...ips]) expect(allowedByPartner(row, ip)).toBe(isAddressAllowed(list, ip));
      }),
    );
  });

  it('keeps at most MAX_ALLOW_LIST_ANSWERS answers and stays right past them', () => {
    const row = partner(['10.0.0.0/16']);
    for (let i = 0; i < MAX_ALLOW_LIST_ANSWERS + 10; i++) {
      const ip = `10.${i % 2}.${(i >> 8) & 255}.${i & 255}`;
      expect(allowedByPartner(row, ip)).toBe(i % 2 === 0);
    }
    const check = vi.spyOn(BlockList.prototype, 'check');
    // The first addresses were forgotten when the answers were full: asked again, same answer.
    expect(allowedByPartner(row, '10.0.0.0')).toBe(true);
    expect(allowedByPartner(row, '10.1.0.1')).toBe(false);
    expect(check).toHaveBeenCalledTimes(2);
  });
});
