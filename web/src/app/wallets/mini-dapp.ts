// The LINE Mini Dapp SDK's wallet (@linenext/dapp-portal-sdk): proprietary, so never bundled. The
// page loads it from the address the operator configured (MINI_DAPP_SDK_URL: Kaia's CDN, or a copy
// the operator installed and serves) and asks it for its EIP-1193 wallet provider, which connects
// Kaia Wallet, the Dapp Portal's own wallet, OKX or Bitget as the user chooses (docs/wallets.md).
import type { Eip1193Provider } from './eip1193.ts';

interface DappPortalSdk {
  getWalletProvider(): Eip1193Provider;
}
interface DappPortalSdkModule {
  init(options: { clientId: string; chainId?: string }): Promise<DappPortalSdk>;
}

let loading: Promise<DappPortalSdkModule> | undefined;

/** Adds the SDK's script once and resolves with its global (`DappPortalSDK`). */
function loadScript(sdkUrl: string): Promise<DappPortalSdkModule> {
  loading ??= new Promise<DappPortalSdkModule>((resolve, reject) => {
    const found = () => {
      const global = (
        window as unknown as { DappPortalSDK?: DappPortalSdkModule & { default?: DappPortalSdkModule } }
      ).DappPortalSDK;
      return global && typeof global.init === 'function' ? global : global?.default;
    };
    const already = found();
    if (already) return resolve(already);
    const script = document.createElement('script');
    script.src = sdkUrl;
    script.async = true;
    script.onload = () => {
      const sdk = found();
      if (sdk) resolve(sdk);
      else reject(new Error('the Mini Dapp SDK loaded but did not define DappPortalSDK'));
    };
    script.onerror = () => reject(new Error('the Mini Dapp SDK could not be loaded'));
    document.head.append(script);
  }).catch((error: unknown) => {
    loading = undefined; // a later click tries again
    throw error;
  });
  return loading;
}

/** The SDK's wallet provider for this client id, on the chain rewards are paid on. */
export async function miniDappWallet(options: {
  clientId: string;
  sdkUrl: string;
  chainId: number | null;
}): Promise<Eip1193Provider> {
  const sdk = await loadScript(options.sdkUrl);
  const portal = await sdk.init({
    clientId: options.clientId,
    ...(options.chainId !== null && { chainId: String(options.chainId) }),
  });
  return portal.getWalletProvider();
}
