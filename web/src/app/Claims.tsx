// The user's reward claims: amount (from the asset's decimals), status, source, and the chain
// transaction of one paid on chain (shortened, copyable, linked to the network's explorer), and a
// claim that waits for a wallet says so, with the way to the wallet panel (#29 "the claim that waits").
import type { Loaded } from '../shared/ui.tsx';
import { Amount, HexValue } from '../shared/values.tsx';
import { formatDateTime } from './locale-format.ts';
import { Loading, Status, usePageLanguage } from './page-parts.tsx';
import type { ClaimStatus, MyClaim } from './types.ts';

const CLAIM_FILTERS: Array<ClaimStatus | ''> = [
  '',
  'RESERVED',
  'REQUESTED',
  'SUCCEEDED',
  'FAILED',
  'REJECTED',
];

const SOURCES: Record<string, string> = {
  DRAW: 'claims.draw',
  GROUP: 'claims.group',
  STREAK: 'claims.streak',
  MISSION: 'claims.mission',
};

export function Claims({
  claims,
  status,
  setStatus,
}: {
  claims: Loaded<{ items: MyClaim[] }>;
  status: ClaimStatus | '';
  setStatus: (s: ClaimStatus | '') => void;
}) {
  const { t, lang } = usePageLanguage();
  return (
    <section aria-labelledby="claims-heading" className="panel">
      <h2 id="claims-heading">{t('claims.heading')}</h2>
      <label htmlFor="claim-status">{t('claims.status')}</label>
      <select
        id="claim-status"
        value={status}
        onChange={(e) => setStatus(CLAIM_FILTERS.find((s) => s === e.currentTarget.value) ?? '')}
      >
        {CLAIM_FILTERS.map((s) => (
          <option key={s} value={s}>
            {s === '' ? t('claims.all') : t(`status.${s}`)}
          </option>
        ))}
      </select>
      <Loading state={claims}>
        {(data) =>
          data.items.length === 0 ? (
            <p className="muted">
              {status === '' ? t('claims.none') : t('claims.noneWith', { status: t(`status.${status}`) })}
            </p>
          ) : (
            <>
              {data.items.some((c) => c.waitsForWallet) && (
                <p className="notice warn" data-testid="claims-wait-for-wallet">
                  {t('claims.waitingNotice')} <a href="#wallet-heading">{t('claims.connectWallet')}</a>
                </p>
              )}
              <ul className="plain-list claims">
                {data.items.map((c) => (
                  <li key={c.id}>
                    <Amount value={c.amount} decimals={c.decimals} symbol={c.assetSymbol} />{' '}
                    <Status status={c.status} />{' '}
                    {c.waitsForWallet && (
                      <span className="badge warn" data-testid="claim-waits-for-wallet">
                        {t('claims.waitsForWallet')}
                      </span>
                    )}{' '}
                    <span className="muted">
                      {t(SOURCES[c.source] ?? 'claims.mission')} · {formatDateTime(c.createdAt, lang)}
                    </span>
                    {c.txHash && (
                      <span className="tx" data-testid="claim-tx" data-tx-hash={c.txHash}>
                        {' · '}
                        {t('claims.tx')}{' '}
                        <HexValue value={c.txHash} href={c.explorerUrl} name={t('claims.txName')} />
                      </span>
                    )}
                  </li>
                ))}
              </ul>
            </>
          )
        }
      </Loading>
    </section>
  );
}
