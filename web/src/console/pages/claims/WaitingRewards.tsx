// Rewards that wait (#29 "the claim that waits"): completions of partner users who have not linked
// (granted when they link, within the reservation time) and chain claims whose user has bound no
// wallet (paid once they bind one on the mission page). Shown on the claims page, a user's page and,
// as counts, on the dashboard, so an operator never takes them for lost.
import { DataTable } from '../../../shared/data-table.tsx';
import { Link } from '../../../shared/router.ts';
import { useLoad } from '../../../shared/ui.tsx';
import { Amount } from '../../../shared/values.tsx';
import { LoadedList } from '../../components/LoadedList.tsx';
import { useConsoleText } from '../../i18n.ts';
import { useSession } from '../../session.tsx';

/** The newest this many are listed; the counts cover all. */
const PAGE = 50;

export function useWaitingRewards(filter: { partnerId?: string; partnerUid?: string }) {
  const session = useSession();
  const query = {
    ...(filter.partnerId ? { partnerId: filter.partnerId } : {}),
    ...(filter.partnerUid ? { partnerUid: filter.partnerUid } : {}),
  };
  return useLoad(
    (signal) => session.api.get('/admin/v1/waiting-rewards', { query: { ...query, limit: PAGE }, signal }),
    [filter.partnerId ?? '', filter.partnerUid ?? ''],
  );
}

export function WaitingRewards({ partnerId, partnerUid }: { partnerId?: string; partnerUid?: string }) {
  const { t, formatDateTime, formatNumber } = useConsoleText();
  const waiting = useWaitingRewards({
    ...(partnerId !== undefined && { partnerId }),
    ...(partnerUid !== undefined && { partnerUid }),
  });
  const counts = waiting.data?.counts;
  return (
    <section aria-labelledby="waiting-heading" data-testid="waiting-rewards">
      <h2 id="waiting-heading">{t('waiting.heading')}</h2>
      <p className="muted">{t('waiting.intro')}</p>
      {counts && (counts.UNLINKED > 0 || counts.NO_WALLET > 0) && (
        <p data-testid="waiting-counts">
          {t('waiting.counts', {
            unlinked: formatNumber(counts.UNLINKED),
            noWallet: formatNumber(counts.NO_WALLET),
          })}
        </p>
      )}
      <LoadedList state={waiting} label={t('waiting.heading')} empty={t('waiting.none')}>
        {(items) => (
          <DataTable
            caption={t('waiting.heading')}
            columns={[
              t('waiting.since'),
              t('claims.user'),
              t('claims.for'),
              { label: t('claims.amount'), numeric: true },
              t('waiting.waitsFor'),
            ]}
          >
            {items.map((w) => (
              <tr
                key={`${w.kind}-${w.claimId ?? `${w.partnerUid}-${w.sourceId}-${w.periodKey}`}`}
                data-kind={w.kind}
              >
                <td>{formatDateTime(w.since)}</td>
                <td>
                  <Link
                    to={`/console/users?${new URLSearchParams({ partnerId: w.partnerId, partnerUid: w.partnerUid }).toString()}`}
                  >
                    {w.partnerUid}
                  </Link>
                </td>
                <td>
                  <code>{w.missionKey ?? w.sourceId}</code> · {w.periodKey}
                </td>
                <td className="number">
                  {w.amount === null ? (
                    t('waiting.ticket')
                  ) : (
                    <Amount value={w.amount} decimals={w.decimals} symbol={w.assetSymbol} />
                  )}
                </td>
                <td>
                  {w.kind === 'UNLINKED' ? (
                    <>
                      <strong>{t('waiting.unlinked')}</strong>
                      <div className="muted">
                        {t('waiting.unlinkedWhat', { until: formatDateTime(w.unpaidAfter ?? w.since) })}
                      </div>
                    </>
                  ) : (
                    <>
                      <strong>{t('waiting.noWallet')}</strong>
                      <div className="muted">{t('waiting.noWalletWhat')}</div>
                    </>
                  )}
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </LoadedList>
    </section>
  );
}
