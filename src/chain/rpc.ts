// JSON-RPC clients of the EVM networks, one per RPC URL, batching the calls made in one tick into
// one HTTP request (a payout batch broadcasts and reads receipts by the hundred).
import {
  BaseError,
  HttpRequestError,
  TimeoutError,
  createPublicClient,
  defineChain,
  fallback,
  http,
} from 'viem';
import type { Chain, PublicClient } from 'viem';

/** A viem chain object for any EVM network by id and RPC URL. */
export function chainFor(chainId: number, rpcUrl: string, name = `evm-${chainId}`): Chain {
  return defineChain({
    id: chainId,
    name,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}

/**
 * Clients by chain id and URL, least recently used first. Bounded (docs/security.md): an operator
 * trying URL after URL, or a network whose URL changed, must not grow the process without end.
 */
const clients = new Map<string, PublicClient>();
export const RPC_CLIENT_CACHE_SIZE = 32;

/** How long one RPC request may take before the payout treats the node as unreachable. */
const RPC_TIMEOUT_MS = 10_000;

export function rpcClient(network: {
  chain_id: number;
  rpc_url: string;
  fallback_rpc_urls?: readonly string[];
  name?: string;
}): PublicClient {
  const urls = [network.rpc_url, ...(network.fallback_rpc_urls ?? [])];
  const key = `${network.chain_id}|${urls.join(' ')}`;
  let client = clients.get(key);
  if (client) {
    clients.delete(key);
    clients.set(key, client);
    return client;
  }
  client = createPublicClient({
    chain: chainFor(network.chain_id, network.rpc_url, network.name),
    // No retries inside a call: the payout loop itself retries, and a node that is down must
    // not hold a worker for long.
    // Several URLs: tried in order, the next when one does not answer (viem's fallback transport).
    transport: fallback(
      urls.map((url) =>
        http(url, { batch: { batchSize: 1000, wait: 0 }, retryCount: 0, timeout: RPC_TIMEOUT_MS }),
      ),
      { retryCount: 0 },
    ),
  }) as PublicClient;
  clients.set(key, client);
  while (clients.size > RPC_CLIENT_CACHE_SIZE) clients.delete(clients.keys().next().value as string);
  return client;
}

/** How many clients the cache holds (tests). */
export function rpcClientCount(): number {
  return clients.size;
}

/**
 * Why a call to an RPC endpoint failed, in words that never quote the endpoint's reply: the reply
 * of an address an operator typed may be anything (an internal admin page), so logs, answers and
 * the outbox's last_error carry only the HTTP status, a timeout or the socket's error code.
 */
export function rpcFailure(error: unknown): string {
  if (error instanceof BaseError) {
    const http = error.walk((e) => e instanceof HttpRequestError) as HttpRequestError | null;
    if (error.walk((e) => e instanceof TimeoutError)) return 'timed out';
    if (http?.status) return `HTTP ${http.status}`;
    const code = socketCode(error);
    if (code) return code;
    if (http) return 'no answer';
  }
  return socketCode(error) ?? 'no answer';
}

function socketCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 8; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** A JSON-RPC error answer (the node answered and refused the call), as opposed to no answer. */
export function isRpcAnswer(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false;
  return (
    error.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError) === null &&
    socketCode(error) === undefined
  );
}
