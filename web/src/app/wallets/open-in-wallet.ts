// Links that open this page inside a mobile wallet app's own browser, where the wallet injects a
// provider that EIP-6963 finds (docs/wallets.md, "Opening the page in a wallet app"). No SDK and no
// relay: a plain https link the phone hands to the app, or to the app's store page when it is absent.

export interface WalletAppLink {
  id: 'kaia-wallet' | 'metamask';
  /** The app's own name (not translated). */
  name: string;
  href: string;
}

/**
 * The links for a page address: Kaia Wallet's universal link takes the whole address after `/u/`;
 * MetaMask's documented dapp link takes it without its scheme, unencoded (an encoded one opens a
 * blank tab in MetaMask's browser).
 */
export function walletAppLinks(pageUrl: string): WalletAppLink[] {
  const url = new URL(pageUrl);
  return [
    { id: 'kaia-wallet', name: 'Kaia Wallet', href: `https://app.kaiawallet.io/u/${url.href}` },
    {
      id: 'metamask',
      name: 'MetaMask',
      href: `https://link.metamask.io/dapp/${url.host}${url.pathname}${url.search}${url.hash}`,
    },
  ];
}

/** A phone or tablet (a touch screen is the main pointer): where wallet apps, not extensions, live. */
export function onTouchDevice(): boolean {
  return typeof matchMedia === 'function' && matchMedia('(pointer: coarse)').matches;
}
