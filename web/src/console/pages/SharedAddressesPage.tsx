// Payout addresses that several platform accounts have bound (one wallet, many accounts: a farming
// sign; docs/rewards.md "Caps"), with those accounts. Read-only. Typed from the generated API
// schema (GET /admin/v1/payout-addresses/shared).
import { DataTable } from '../../shared/data-table.tsx';
import { LoadState, useLoad } from '../../shared/ui.tsx';
import { useConsoleText } from '../i18n.ts';
import { useSession } from '../session.tsx';

export function SharedAddressesPage() {
  const session = useSession();
  const { t, formatDateTime, formatNumber } = useConsoleText();
  const shared = useLoad(
    (signal) => session.api.get('/admin/v1/payout-addresses/shared', { query: { limit: 200 }, signal }),
    [],
  );
  return (
    <>
      <h1>{t('nav.sharedAddresses')}</h1>
      <p className="muted">{t('sharedAddresses.intro')}</p>
      <LoadState state={shared} label={t('nav.sharedAddresses')}>
        {(data) =>
          data.items.length === 0 ? (
            <p>{t('sharedAddresses.none')}</p>
          ) : (
            <DataTable
              showCaption
              caption={t('sharedAddresses.caption', { total: formatNumber(data.total) })}
              columns={[t('sharedAddresses.address'), t('sharedAddresses.accounts')]}
            >
              {data.items.map((item) => (
                <tr key={item.address}>
                  <td>
                    <code className="address">{item.address}</code>
                  </td>
                  <td>
                    <ul>
                      {item.accounts.map((a) => (
                        <li key={a.accountId}>
                          {a.displayName ?? ''} <code className="muted">{a.accountId}</code>{' '}
                          <span className="muted">
                            {t('sharedAddresses.bound', {
                              chainId: String(a.chainId),
                              at: formatDateTime(a.boundAt),
                            })}
                          </span>
                        </li>
                      ))}
                    </ul>
                  </td>
                </tr>
              ))}
            </DataTable>
          )
        }
      </LoadState>
    </>
  );
}
