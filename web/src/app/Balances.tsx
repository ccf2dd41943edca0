// The user's balances per asset: what the ledger paid and what was paid on a chain.
import type { Loaded } from '../shared/ui.tsx';
import { Amount } from '../shared/values.tsx';
import { Loading, usePageLanguage } from './page-parts.tsx';
import type { Balance } from './types.ts';

export function Balances({ balances }: { balances: Loaded<{ items: Balance[] }> }) {
  const { t } = usePageLanguage();
  return (
    <section aria-labelledby="balances-heading" className="panel">
      <h2 id="balances-heading">{t('balances.heading')}</h2>
      <Loading state={balances}>
        {(data) =>
          data.items.length === 0 ? (
            <p className="muted">{t('balances.none')}</p>
          ) : (
            <ul className="balances">
              {data.items.map((b) => (
                <li key={b.assetId}>
                  <span className="balance">
                    <Amount value={b.balance} decimals={b.decimals} testId={`balance-${b.symbol}`} />
                  </span>{' '}
                  <abbr title={b.name}>{b.symbol}</abbr>
                </li>
              ))}
            </ul>
          )
        }
      </Loading>
    </section>
  );
}
