// Where a webhook may be sent: public addresses only (no private, loopback, link-local, shared,
// documentation, multicast or reserved ranges; IPv4-mapped IPv6 is judged by its IPv4 address
// in any spelling; any other IPv6 outside 2000::/3, IPv4-compatible ::a.b.c.d included, is refused),
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
  ['::', 96], // IPv4-compatible (deprecated), with :: and ::1: '::127.0.0.1' reaches loopback
  ['::ffff:0:0:0', 96], // IPv4-translated (SIIT)
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
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 0) return false;
  if (family === 6) {
    const words = ipv6Words(bare);
    // ::ffff:a.b.c.d, however it is spelt (the URL parser writes it as ::ffff:7f00:1).
    if (words.slice(0, 5).every((w) => w === 0) && words[5] === 0xffff)
      return isPublicAddress(ipv4Of(words[6] as number, words[7] as number));
    // Only 2000::/3 is global unicast; the rest (::/8 with its IPv4-compatible ::a.b.c.d, fc00::/7,
    // fe80::/10, ff00::/8 ...) is reserved, local or multicast.
    if (((words[0] as number) & 0xe000) !== 0x2000) return false;
  }
  return !NON_PUBLIC.check(bare, family === 4 ? 'ipv4' : 'ipv6');
}

/** The eight 16-bit words of a valid IPv6 literal (a trailing dotted quad is two words). */
function ipv6Words(address: string): number[] {
  let text = address.toLowerCase();
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((w) => parseInt(w, 16)));
  const front = parse(head);
  const back = tail === undefined ? [] : parse(tail);
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}

function ipv4Of(high: number, low: number): string {
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
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
