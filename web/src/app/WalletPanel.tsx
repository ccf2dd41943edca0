// The wallet rewards on a chain are paid to: bound by signing a one-time Sign-In with Ethereum
// message with the browser's wallet (EIP-1193 personal_sign), shown, and rebound the same way.
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { apiRequest, ApiError, query } from '../shared/api.ts';
import { ErrorNotice, useLoad } from '../shared/ui.tsx';
import { currentLanguage } from './i18n.ts';
import { formatDateTime } from './locale-format.ts';

interface BoundWallet {
  address: string;
  chainId: number;
  boundAt: string;
}

/** The part of EIP-1193 the page uses. */
interface Eip1193Provider {
  request(args: { method: string; params?: unknown[] }): Promise<unknown>;
}

function browserWallet(): Eip1193Provider | undefined {
  return (window as unknown as { ethereum?: Eip1193Provider }).ethereum;
}

/** personal_sign takes the message as hex of its UTF-8 bytes. */
function utf8Hex(text: string): string {
  return `0x${Array.from(new TextEncoder().encode(text), (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

async function signAndBind(wallet: Eip1193Provider): Promise<void> {
  const accounts = (await wallet.request({ method: 'eth_requestAccounts' })) as string[];
  const address = accounts[0];
  if (!address) throw new Error('the wallet shared no account');
  // The chain the wallet is on goes into the message; a wallet that cannot say leaves the default.
  const chainHex = (await wallet.request({ method: 'eth_chainId' }).catch(() => undefined)) as
    string | undefined;
  const chainId = chainHex ? Number.parseInt(chainHex, 16) : undefined;
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

export function WalletPanel() {
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
  const [binding, setBinding] = useState(false);
  const [failure, setFailure] = useState<unknown>(undefined);
  const wallet = browserWallet();
  const bind = async () => {
    if (!wallet) return;
    setBinding(true);
    setFailure(undefined);
    try {
      await signAndBind(wallet);
      current.reload();
    } catch (error) {
      setFailure(error);
    } finally {
      setBinding(false);
    }
  };
  const bound = current.data ?? null;
  return (
    <section aria-labelledby="wallet-heading" className="panel">
      <h2 id="wallet-heading">{t('wallet.heading')}</h2>
      {bound ? (
        <p>
          {t('wallet.paidTo')}{' '}
          <code className="address" data-testid="wallet-address">
            {bound.address}
          </code>{' '}
          <span className="muted">{t('wallet.since', { date: formatDateTime(bound.boundAt, lang) })}</span>
        </p>
      ) : current.loading ? null : (
        <p className="muted">{t('wallet.none')}</p>
      )}
      {wallet ? (
        <button
          type="button"
          className={bound ? 'secondary small' : ''}
          disabled={binding}
          onClick={() => void bind()}
        >
          {binding ? t('wallet.waiting') : bound ? t('wallet.another') : t('wallet.connect')}
        </button>
      ) : (
        <p className="muted">{t('wallet.noBrowserWallet')}</p>
      )}
      <ErrorNotice error={failure ?? current.error} title={t('wallet.failed')} />
    </section>
  );
}
