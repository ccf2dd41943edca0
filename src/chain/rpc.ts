// JSON-RPC clients of the EVM networks, one per RPC URL, batching the calls made in one tick into
// one HTTP request (a payout batch broadcasts and reads receipts by the hundred).
import { createPublicClient, defineChain, http } from 'viem';
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

const clients = new Map<string, PublicClient>();

/** How long one RPC request may take before the payout treats the node as unreachable. */
const RPC_TIMEOUT_MS = 10_000;

export function rpcClient(network: { chain_id: number; rpc_url: string; name?: string }): PublicClient {
  const key = `${network.chain_id}|${network.rpc_url}`;
  let client = clients.get(key);
  if (!client) {
    client = createPublicClient({
      chain: chainFor(network.chain_id, network.rpc_url, network.name),
      // No retries inside a call: the payout loop itself retries, and a node that is down must
      // not hold a worker for long.
      transport: http(network.rpc_url, {
        batch: { batchSize: 1000, wait: 0 },
        retryCount: 0,
        timeout: RPC_TIMEOUT_MS,
      }),
    }) as PublicClient;
    clients.set(key, client);
  }
  return client;
}
