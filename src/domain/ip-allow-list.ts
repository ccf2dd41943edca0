// The achieve IP allow-list: parse and canonicalise CIDRs, and test a client address against them.
import { BlockList, isIP } from 'node:net';

/** Canonical text of an IP or CIDR ('10.0.0.0/8', '2001:db8::/32'), or undefined when invalid. */
export function canonicalCidr(entry: string): string | undefined {
  const [address = '', prefixText, ...rest] = entry.trim().split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return undefined;
  const max = family === 4 ? 32 : 128;
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (prefix > max) return undefined;
  return `${address.toLowerCase()}/${prefix}`;
}

/** An IPv4 client seen through an IPv6 socket arrives as ::ffff:a.b.c.d; compare it as IPv4. */
function normaliseAddress(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return mapped?.[1] ?? ip;
}

export function buildAllowList(cidrs: readonly string[]): BlockList {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [address = '', prefix = ''] = cidr.split('/');
    list.addSubnet(address, Number(prefix), isIP(address) === 6 ? 'ipv6' : 'ipv4');
  }
  return list;
}

export function isAddressAllowed(list: BlockList, ip: string): boolean {
  const address = normaliseAddress(ip);
  const family = isIP(address);
  if (family === 0) return false;
  return list.check(address, family === 6 ? 'ipv6' : 'ipv4');
}
