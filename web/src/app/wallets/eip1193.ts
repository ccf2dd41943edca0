// The part of EIP-1193 the mission page uses, and the one way every connector binds a wallet:
// ask the wallet for its address, get our one-time SIWE challenge for it, have the wallet sign it
// (personal_sign), and send message and signature back (docs/wallets.md).
import { apiRequest, query } from '../../shared/api.ts';

export interface Eip1193Provider {
  request(args: { method: string; params?: unknown[] }): Promise<unknown>;
}

/** personal_sign takes the message as hex of its UTF-8 bytes. */
export function utf8Hex(text: string): string {
  return `0x${Array.from(new TextEncoder().encode(text), (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

export interface SignInOptions {
  /** The method that asks the user to share an account (Kaia's SDK names it kaia_requestAccounts). */
  requestAccounts?: string;
  /** The chain to name in the message when the wallet cannot say (the SDK's, the dev chain's). */
  chainId?: number | null;
}

export async function signAndBind(wallet: Eip1193Provider, options: SignInOptions = {}): Promise<void> {
  const accounts = (await wallet.request({
    method: options.requestAccounts ?? 'eth_requestAccounts',
  })) as string[];
  const address = accounts[0];
  if (!address) throw new Error('the wallet shared no account');
  // The chain the wallet is on goes into the message; a wallet that cannot say leaves the default.
  let chainId = options.chainId ?? undefined;
  if (chainId === undefined) {
    const chainHex = (await wallet.request({ method: 'eth_chainId' }).catch(() => undefined)) as
      string | undefined;
    chainId = chainHex ? Number.parseInt(chainHex, 16) : undefined;
  }
  const challenge = await apiRequest<{ message: string }>(
    'GET',
    `/v1/me/wallet/challenge${query({ address, chainId })}`,
  );
  const signature = (await wallet.request({
    method: 'personal_sign',
    params: [utf8Hex(challenge.message), address],
  })) as string;
  await apiRequest('POST', '/v1/me/wallet', { body: { message: challenge.message, signature } });
}
