// The development wallet: a key kept in this browser (localStorage), offered only when the service
// says so (never with NODE_ENV=production), so that the whole journey (bind, complete, see the token
// arrive on the dev chain) works in any browser without an extension. Its key is as safe as the
// browser's storage: for development chains only.
import type { Eip1193Provider } from './eip1193.ts';

const STORAGE_KEY = 'mrs.devWallet.key';

/** An EIP-1193 provider over the browser's development key (made on first use). */
export async function devWallet(chainId: number | null): Promise<Eip1193Provider> {
  // Loaded on first use only: the signing code is not in the page's first bundle.
  const { generatePrivateKey, privateKeyToAccount } = await import('viem/accounts');
  let key = window.localStorage.getItem(STORAGE_KEY);
  if (!key || !/^0x[0-9a-f]{64}$/.test(key)) {
    key = generatePrivateKey();
    window.localStorage.setItem(STORAGE_KEY, key);
  }
  const account = privateKeyToAccount(key as `0x${string}`);
  return {
    async request({ method, params }) {
      if (method === 'eth_requestAccounts' || method === 'eth_accounts') return [account.address];
      if (method === 'eth_chainId' && chainId !== null) return `0x${chainId.toString(16)}`;
      if (method === 'personal_sign')
        return account.signMessage({ message: { raw: String(params?.[0]) as `0x${string}` } });
      throw Object.assign(new Error(`the development wallet does not do ${method}`), { code: 4200 });
    },
  };
}
