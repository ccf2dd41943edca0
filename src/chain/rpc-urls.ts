// Where a network's RPC and explorer URLs may point (docs/security.md, "Chain RPC URLs"): the service
// POSTs to an RPC URL an operator typed, so in production an address inside the service's network
// (loopback, private, link-local: admin ports, cloud metadata) is refused unless its host is listed
// in CHAIN_RPC_ALLOWED_HOSTS. Checked when a URL is saved; the host name is resolved then.
import { isIP } from 'node:net';
import { lookup } from 'node:dns/promises';
import { chainRpcUrlRefused } from '../error-factories.ts';
import { isPublicAddress } from '../webhooks/addresses.ts';

/** Throws CHAIN_RPC_URL_REFUSED when `raw` may not be used; `allowedHosts` undefined = any address. */
export async function checkRpcUrl(
  field: string,
  raw: string,
  allowedHosts: readonly string[] | undefined,
): Promise<void> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw chainRpcUrlRefused(field, 'is not an absolute URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw chainRpcUrlRefused(field, 'must use http(s)');
  if (url.username !== '' || url.password !== '')
    throw chainRpcUrlRefused(field, 'must not carry a user name or password');
  if (allowedHosts === undefined) return;
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (allowedHosts.includes(host)) return;
  if (isIP(host) !== 0) {
    if (!isPublicAddress(host))
      throw chainRpcUrlRefused(
        field,
        'points at a non-public address (list its host in CHAIN_RPC_ALLOWED_HOSTS)',
      );
    return;
  }
  let addresses: Array<{ address: string }>;
  try {
    addresses = await lookup(host, { all: true, verbatim: true });
  } catch {
    throw chainRpcUrlRefused(field, 'has a host name that does not resolve');
  }
  if (addresses.length === 0 || addresses.some((a) => !isPublicAddress(a.address)))
    throw chainRpcUrlRefused(
      field,
      'resolves to a non-public address (list its host in CHAIN_RPC_ALLOWED_HOSTS)',
    );
}
