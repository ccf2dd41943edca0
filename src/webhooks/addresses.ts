// Where a webhook may be sent: public addresses only (no private, loopback, link-local, shared,
// documentation, multicast or reserved ranges; IPv4-mapped IPv6 is judged by its IPv4 address),
// checked when an endpoint is saved and again for the address each delivery connects to, so a name
// that later resolves to an internal address (DNS rebinding) is refused at send time.
import { BlockList, isIP } from 'node:net';
import { lookup } from 'node:dns/promises';

const NON_PUBLIC = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  NON_PUBLIC.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  NON_PUBLIC.addSubnet(net, prefix, 'ipv6');
}

/** True when `address` (an IP literal) is a public unicast address. */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 0) return false;
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
    if (mapped) return isPublicAddress(mapped[1] as string);
    if (/^::ffff:/i.test(bare)) return false;
  }
  return !NON_PUBLIC.check(bare, family === 4 ? 'ipv4' : 'ipv6');
}

export interface AddressRules {
  requireHttps: boolean;
  allowPrivateAddresses: boolean;
}

/** Why an endpoint URL is refused, or undefined when it may be saved (resolves the host name). */
export async function refuseEndpointUrl(raw: string, rules: AddressRules): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'is not an absolute URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must use https';
  if (rules.requireHttps && url.protocol !== 'https:') return 'must use https in production';
  if (url.username !== '' || url.password !== '') return 'must not carry a user name or password';
  if (url.hash !== '') return 'must not have a fragment';
  if (rules.allowPrivateAddresses) return undefined;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) return isPublicAddress(host) ? undefined : 'points at a non-public address';
  let addresses: Array<{ address: string }>;
  try {
    addresses = await lookup(host, { all: true, verbatim: true });
  } catch {
    return `has a host name that does not resolve ('${host}')`;
  }
  if (addresses.length === 0 || addresses.some((a) => !isPublicAddress(a.address)))
    return 'resolves to a non-public address';
  return undefined;
}
