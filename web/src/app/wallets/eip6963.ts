// Injected wallets by EIP-6963: every wallet in the page announces itself (name, icon, provider)
// when asked, so several extensions or an in-app browser's wallet (Kaia Wallet, MetaMask, OKX,
// Bitget) are each offered by name; window.ethereum is the fallback of a wallet that does not.
import { useEffect, useState } from 'react';
import type { Eip1193Provider } from './eip1193.ts';

export interface InjectedWallet {
  /** The provider's uuid (EIP-6963), or 'window.ethereum'. */
  id: string;
  name: string;
  /** A data: URI image, or undefined (window.ethereum). */
  icon: string | undefined;
  provider: Eip1193Provider;
}

interface AnnounceDetail {
  info?: { uuid?: unknown; name?: unknown; icon?: unknown; rdns?: unknown };
  provider?: Eip1193Provider;
}

/** Only images inline in the announcement: a wallet's icon must not make the page fetch anything. */
function safeIcon(icon: unknown): string | undefined {
  return typeof icon === 'string' && /^data:image\/(png|svg\+xml|webp|jpeg|gif);/i.test(icon)
    ? icon
    : undefined;
}

export function useInjectedWallets(): InjectedWallet[] {
  const [announced, setAnnounced] = useState<InjectedWallet[]>([]);
  useEffect(() => {
    const onAnnounce = (event: Event) => {
      const detail = (event as CustomEvent<AnnounceDetail>).detail;
      const provider = detail?.provider;
      const uuid = detail?.info?.uuid;
      if (!provider || typeof provider.request !== 'function' || typeof uuid !== 'string') return;
      const name = typeof detail.info?.name === 'string' && detail.info.name.trim() ? detail.info.name : uuid;
      const wallet: InjectedWallet = {
        id: uuid,
        name: name.slice(0, 60),
        icon: safeIcon(detail.info?.icon),
        provider,
      };
      setAnnounced((list) => [...list.filter((w) => w.id !== uuid), wallet]);
    };
    window.addEventListener('eip6963:announceProvider', onAnnounce);
    window.dispatchEvent(new Event('eip6963:requestProvider'));
    return () => window.removeEventListener('eip6963:announceProvider', onAnnounce);
  }, []);
  const legacy = (window as unknown as { ethereum?: Eip1193Provider }).ethereum;
  // window.ethereum only when no wallet announced itself (it is then one of them, under its name).
  if (announced.length === 0 && legacy && typeof legacy.request === 'function')
    return [{ id: 'window.ethereum', name: '', icon: undefined, provider: legacy }];
  return announced;
}
