// The wallet rewards on a chain are paid to: shown, and bound (or rebound) by signing a one-time
// Sign-In with Ethereum message with whichever wallet works here: injected wallets announced by
// EIP-6963 (window.ethereum as the fallback), the LINE Mini Dapp SDK's wallet when the operator
// configured it, and in development a wallet kept in the browser (wallets/, docs/wallets.md). On a
// phone with no wallet in the page, links open the page in Kaia Wallet's or MetaMask's own browser.
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { apiRequest, ApiError } from '../shared/api.ts';
import { ErrorNotice, useLoad } from '../shared/ui.tsx';
import { HexValue } from '../shared/values.tsx';
import { currentLanguage } from './i18n.ts';
import { formatDateTime } from './locale-format.ts';
import { devWallet } from './wallets/dev-wallet.ts';
import { signAndBind } from './wallets/eip1193.ts';
import type { Eip1193Provider, SignInOptions } from './wallets/eip1193.ts';
import { useInjectedWallets } from './wallets/eip6963.ts';
import { miniDappWallet } from './wallets/mini-dapp.ts';
import { onTouchDevice, walletAppLinks } from './wallets/open-in-wallet.ts';

interface BoundWallet {
  address: string;
  chainId: number;
  boundAt: string;
}

interface Connectors {
  chainId: number | null;
  injected: boolean;
  miniDapp: { clientId: string; sdkUrl: string } | null;
  devWallet: boolean;
}

interface Connector {
  id: string;
  label: string;
  icon: string | undefined;
  connect(): Promise<{ wallet: Eip1193Provider; options: SignInOptions }>;
}

/** `onBound`: after a wallet is bound (the claims that waited for one are paid now: reload them). */
export function WalletPanel({ onBound }: { onBound?: () => void } = {}) {
  const { t, i18n } = useTranslation();
  const lang = currentLanguage(i18n);
  const current = useLoad(
    (signal) =>
      apiRequest<BoundWallet>('GET', '/v1/me/wallet', { signal }).catch((error: unknown) => {
        if (error instanceof ApiError && error.status === 404) return null;
        throw error;
      }),
    [],
  );
  const offered = useLoad(
    (signal) => apiRequest<Connectors>('GET', '/v1/me/wallet/connectors', { signal }),
    [],
  );
  const injected = useInjectedWallets();
  const [binding, setBinding] = useState<string | undefined>(undefined);
  const [failure, setFailure] = useState<unknown>(undefined);

  const bound = current.data ?? null;
  const config = offered.data;
  const connectors: Connector[] = [];
  if (config?.injected !== false)
    for (const wallet of injected)
      connectors.push({
        id: `injected:${wallet.id}`,
        label: wallet.name
          ? t('wallet.connectWith', { name: wallet.name })
          : t(bound ? 'wallet.another' : 'wallet.connect'),
        icon: wallet.icon,
        connect: async () => ({ wallet: wallet.provider, options: {} }),
      });
  if (config?.miniDapp) {
    const miniDapp = config.miniDapp;
    connectors.push({
      id: 'mini-dapp',
      label: t('wallet.miniDapp'),
      icon: undefined,
      connect: async () => ({
        wallet: await miniDappWallet({ ...miniDapp, chainId: config.chainId }),
        options: { requestAccounts: 'kaia_requestAccounts', chainId: config.chainId },
      }),
    });
  }
  if (config?.devWallet)
    connectors.push({
      id: 'dev-wallet',
      label: t('wallet.devWallet'),
      icon: undefined,
      connect: async () => ({
        wallet: await devWallet(config.chainId),
        options: { chainId: config.chainId },
      }),
    });

  // A phone's browser has no wallet extension: offer the wallet apps' browsers, which inject one.
  const appLinks = injected.length === 0 && onTouchDevice() ? walletAppLinks(window.location.href) : [];

  const bind = async (connector: Connector) => {
    setBinding(connector.id);
    setFailure(undefined);
    try {
      const { wallet, options } = await connector.connect();
      await signAndBind(wallet, options);
      current.reload();
      onBound?.();
    } catch (error) {
      setFailure(error);
    } finally {
      setBinding(undefined);
    }
  };
  return (
    <section aria-labelledby="wallet-heading" className="panel">
      <h2 id="wallet-heading">{t('wallet.heading')}</h2>
      {bound ? (
        <p>
          {t('wallet.paidTo')}{' '}
          <HexValue value={bound.address} name={t('wallet.addressName')} testId="wallet-address" />{' '}
          <span className="muted">{t('wallet.since', { date: formatDateTime(bound.boundAt, lang) })}</span>
        </p>
      ) : current.loading ? null : (
        <p className="muted">{t('wallet.none')}</p>
      )}
      {connectors.length > 0 ? (
        <div className="wallet-connectors" data-testid="wallet-connectors">
          {connectors.map((connector) => (
            <button
              key={connector.id}
              type="button"
              className={bound ? 'secondary small' : ''}
              disabled={binding !== undefined}
              data-connector={connector.id}
              onClick={() => void bind(connector)}
            >
              {connector.icon ? <img src={connector.icon} alt="" width={20} height={20} /> : null}
              {binding === connector.id ? t('wallet.waiting') : connector.label}
            </button>
          ))}
          {config?.devWallet ? <p className="muted small">{t('wallet.devWalletNote')}</p> : null}
        </div>
      ) : null}
      {appLinks.length > 0 ? (
        <div className="wallet-connectors" data-testid="wallet-app-links">
          {appLinks.map((link) => (
            <a key={link.id} className="button secondary" href={link.href} data-wallet-app={link.id}>
              {t('wallet.openIn', { name: link.name })}
            </a>
          ))}
          <p className="muted small">{t('wallet.openInNote')}</p>
        </div>
      ) : null}
      {connectors.length > 0 || offered.loading || bound ? null : (
        // Where to open the page for a wallet: only while there is none bound (a bound wallet is paid).
        <p className="muted" data-testid="wallet-no-connector">
          {t('wallet.noBrowserWallet')}
        </p>
      )}
      <ErrorNotice error={failure ?? current.error} title={t('wallet.failed')} />
    </section>
  );
}
