// The chain payouts of the outbox (GET /admin/v1/chain-payouts), newest first, so an operator sees a
// stuck one: status, nonce, the transaction in force linked to the network's explorer (and every
// replacement), attempts, age, and the amount from the paying budget's asset decimals. Filtered by
// status, network and reward wallet (each budget pays from a wallet of its own, so the budget names
// it), paged by the service's cursor; filters and page live in the address.
import { DataTable } from '../../../shared/data-table.tsx';
import { Link } from '../../../shared/router.ts';
import { LoadState, SelectField, useLoad } from '../../../shared/ui.tsx';
import { Amount, HexValue } from '../../../shared/values.tsx';
import { budgetOptions, useBudgetList, withAny } from '../../choices.ts';
import { FilterForm, useQueryFilters } from '../../components/FilterForm.tsx';
import { useConsoleText } from '../../i18n.ts';
import { useSession } from '../../session.tsx';
import type { AnswerOf, ItemOf } from '../../../shared/api-client.ts';
import type { Budget } from '../../types.ts';

export type ChainPayout = ItemOf<AnswerOf<'get', '/admin/v1/chain-payouts'>>;
type PayoutStatus = ChainPayout['status'];

const STATUSES: PayoutStatus[] = ['SIGNED', 'BROADCAST', 'CONFIRMED', 'REVERTED', 'FAILED'];
const FILTERS = ['status', 'networkId', 'budgetId'] as const;
const PAGE = 50;
/** A payout not settled this long after it was signed is shown as stuck (confirmations take minutes). */
export const STUCK_AFTER_MS = 15 * 60_000;
const TONES: Record<PayoutStatus, string> = {
  SIGNED: 'muted',
  BROADCAST: 'info',
  CONFIRMED: 'ok',
  REVERTED: 'danger',
  FAILED: 'danger',
};

/** Base units (an integer string) as whole units of an asset with `decimals`: ("1500000", 6) -> "1.5". */
export function wholeUnits(base: string, decimals: number): string {
  if (!/^\d+$/.test(base) || decimals <= 0) return base;
  const digits = base.padStart(decimals + 1, '0');
  const whole = digits.slice(0, -decimals).replace(/^0+(?=\d)/, '');
  const fraction = digits.slice(-decimals).replace(/0+$/, '');
  return fraction === '' ? whole : `${whole}.${fraction}`;
}

/** How long ago, in the operator's language ("12 minutes ago"), from the largest unit that fits. */
export function ageText(instant: string, now: number, locale: string): string {
  const seconds = Math.round((new Date(instant).getTime() - now) / 1000);
  const format = new Intl.RelativeTimeFormat(locale, { numeric: 'auto' });
  const units: Array<[Intl.RelativeTimeFormatUnit, number]> = [
    ['day', 86_400],
    ['hour', 3_600],
    ['minute', 60],
  ];
  for (const [unit, size] of units)
    if (Math.abs(seconds) >= size) return format.format(Math.trunc(seconds / size), unit);
  return format.format(seconds, 'second');
}

/** An answer with the time it arrived, so the rows' ages are counted from it. */
function stamped<T extends object>(answer: T): T & { loadedAt: number } {
  return { ...answer, loadedAt: Date.now() };
}

export function isStuck(payout: Pick<ChainPayout, 'status' | 'signedAt'>, now: number): boolean {
  return (
    (payout.status === 'SIGNED' || payout.status === 'BROADCAST') &&
    now - new Date(payout.signedAt).getTime() > STUCK_AFTER_MS
  );
}

function PayoutRow({
  payout,
  budget,
  now,
}: {
  payout: ChainPayout;
  budget: Budget | undefined;
  now: number;
}) {
  const { t, formatDateTime, formatNumber, locale } = useConsoleText();
  const stuck = isStuck(payout, now);
  const older = payout.transactions.filter((tx) => tx.txHash !== payout.txHash);
  return (
    <tr data-testid="chain-payout" data-status={payout.status} data-stuck={stuck || undefined}>
      <td>
        <span title={formatDateTime(payout.signedAt)}>{ageText(payout.signedAt, now, locale)}</span>
        <div className="muted">{formatDateTime(payout.signedAt)}</div>
      </td>
      <td>
        <span className={`badge ${TONES[payout.status]}`}>{t(`payouts.statuses.${payout.status}`)}</span>
        {stuck && (
          <div className="payout-stuck" data-testid="payout-stuck">
            {t('payouts.stuck')}
          </div>
        )}
        {payout.lastError && <div className="muted payout-error">{payout.lastError}</div>}
      </td>
      <td className="number payout-count">{formatNumber(payout.nonce)}</td>
      <td>
        <HexValue value={payout.txHash} href={payout.explorerUrl} name={t('payouts.tx')} testId="payout-tx" />
        {payout.blockNumber !== null && (
          <div className="muted">{t('payouts.block', { block: formatNumber(payout.blockNumber) })}</div>
        )}
        {older.length > 0 && (
          <details>
            <summary>
              {t('payouts.otherTxs', { count: older.length, shown: formatNumber(older.length) })}
            </summary>
            <ul className="payout-txs">
              {older.map((tx) => (
                <li key={tx.txHash}>
                  <HexValue value={tx.txHash} href={tx.explorerUrl} name={t('payouts.tx')} />{' '}
                  <span className="muted">
                    {t(`payouts.txStatuses.${tx.status}`, { defaultValue: tx.status })}
                  </span>
                </li>
              ))}
            </ul>
          </details>
        )}
      </td>
      <td className="number payout-count">
        {t('payouts.broadcasts', { count: payout.broadcasts, shown: formatNumber(payout.broadcasts) })}
        {payout.replacements > 0 && (
          <div className="muted">
            {t('payouts.replacements', {
              count: payout.replacements,
              shown: formatNumber(payout.replacements),
            })}
          </div>
        )}
      </td>
      <td className="number payout-count">
        {budget ? (
          <Amount
            value={wholeUnits(payout.amount, budget.decimals)}
            decimals={budget.decimals}
            symbol={budget.assetSymbol}
            testId="payout-amount"
          />
        ) : (
          <span data-testid="payout-amount">{t('payouts.baseUnits', { amount: payout.amount })}</span>
        )}
      </td>
      <td>
        <HexValue value={payout.to} name={t('payouts.recipient')} />
        <div className="muted">
          {budget ? (
            <Link to={`/console/budgets/${payout.budgetId}`}>{budget.name}</Link>
          ) : (
            <code>{payout.budgetId}</code>
          )}
          {' · '}
          {payout.networkName}
        </div>
      </td>
    </tr>
  );
}

export function PayoutsList() {
  const session = useSession();
  const { t, formatNumber } = useConsoleText();
  const { filter, search } = useQueryFilters(FILTERS);
  const cursor = search.get('cursor') ?? '';
  const networks = useLoad((signal) => session.api.get('/admin/v1/chain-networks', { signal }), []);
  const budgets = useBudgetList();
  const payouts = useLoad(
    // Ages are counted from when the list was loaded (rendering stays pure).
    async (signal) =>
      stamped(
        await session.api.get('/admin/v1/chain-payouts', {
          query: {
            // The status comes from the address bar; the service refuses one that is not a status.
            status: (filter.status || undefined) as PayoutStatus | undefined,
            networkId: filter.networkId || undefined,
            budgetId: filter.budgetId || undefined,
            cursor: cursor || undefined,
            limit: PAGE,
          },
          signal,
        }),
      ),
    [...FILTERS.map((f) => filter[f]), cursor],
  );
  const budgetById = new Map((budgets.data?.items ?? []).map((b) => [b.id, b]));
  const olderLink = (next: string) => {
    const params = new URLSearchParams(search);
    params.set('cursor', next);
    return `/console/chain?${params.toString()}`;
  };
  const newestLink = () => {
    const params = new URLSearchParams(search);
    params.delete('cursor');
    const rest = params.toString();
    return `/console/chain${rest ? `?${rest}` : ''}`;
  };
  return (
    <section aria-labelledby="payouts-heading">
      <h2 id="payouts-heading">{t('payouts.title')}</h2>
      <p className="muted">{t('payouts.intro')}</p>
      <FilterForm
        key={search.toString() + String(networks.data?.items.length) + String(budgets.data?.items.length)}
        label={t('payouts.filter')}
        path="/console/chain"
        names={FILTERS}
        reload={payouts.reload}
        submit={t('payouts.show')}
        clear={t('payouts.clear')}
      >
        <SelectField
          label={t('payouts.status')}
          name="status"
          defaultValue={filter.status}
          options={withAny(
            t('payouts.anyStatus'),
            STATUSES.map((s) => ({ value: s, label: t(`payouts.statuses.${s}`) })),
          )}
        />
        <SelectField
          label={t('payouts.network')}
          name="networkId"
          defaultValue={filter.networkId}
          options={withAny(
            t('payouts.allNetworks'),
            (networks.data?.items ?? []).map((n) => ({ value: n.id, label: n.name })),
          )}
        />
        <SelectField
          label={t('payouts.wallet')}
          name="budgetId"
          defaultValue={filter.budgetId}
          hint={t('payouts.walletHint')}
          options={withAny(
            t('payouts.allWallets'),
            budgetOptions(budgets.data?.items ?? [], (b) => b.name),
          )}
        />
      </FilterForm>
      <LoadState state={payouts} label={t('payouts.loading')}>
        {(data) =>
          data.items.length === 0 ? (
            <p>{cursor ? t('payouts.noMore') : t('payouts.none')}</p>
          ) : (
            <>
              <DataTable
                showCaption
                caption={t('payouts.caption', {
                  count: data.items.length,
                  shown: formatNumber(data.items.length),
                })}
                columns={[
                  t('payouts.signed'),
                  t('payouts.status'),
                  { label: t('payouts.nonce'), numeric: true },
                  t('payouts.tx'),
                  { label: t('payouts.attempts'), numeric: true },
                  { label: t('payouts.amount'), numeric: true },
                  t('payouts.recipient'),
                ]}
              >
                {data.items.map((p) => (
                  <PayoutRow key={p.id} payout={p} budget={budgetById.get(p.budgetId)} now={data.loadedAt} />
                ))}
              </DataTable>
              <div className="actions">
                {cursor && <Link to={newestLink()}>{t('payouts.newest')}</Link>}
                {data.nextCursor && <Link to={olderLink(data.nextCursor)}>{t('payouts.older')}</Link>}
              </div>
            </>
          )
        }
      </LoadState>
    </section>
  );
}
