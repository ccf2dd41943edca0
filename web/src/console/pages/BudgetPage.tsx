// One budget: its figures, a top-up (with, for a budget paid on a chain, the funding of its reward
// wallet in the same step where it can), its history as a chart, and its latest claims.
import { useState } from 'react';
import { ApiError } from '../../shared/api.ts';
import { LineChart } from '../../shared/charts.tsx';
import { plotValue } from '../../shared/format.ts';
import { Amount, useAmountText } from '../../shared/values.tsx';
import { Link } from '../../shared/router.ts';
import { RewardWalletPanel } from './chain/RewardWalletPanel.tsx';
import { LoadState, StatusBadge, TextField, useLoad } from '../../shared/ui.tsx';
import { ActionForm } from '../components/ActionForm.tsx';
import { DataTable } from '../../shared/data-table.tsx';
import { LoadedList } from '../components/LoadedList.tsx';
import { BackLink } from '../components/PageHeader.tsx';
import { StatCards } from '../components/StatCards.tsx';
import { field } from '../forms.ts';
import { useConsoleText } from '../i18n.ts';
import { useSession } from '../session.tsx';
import type { Budget, BudgetHistoryPoint } from '../types.ts';

function History({ budget, points }: { budget: Budget; points: BudgetHistoryPoint[] }) {
  const { t, formatNumber } = useConsoleText();
  const amountText = useAmountText();
  if (points.length === 0) return <p>{t('budgetPage.noMovements')}</p>;
  // One day is a dot under a dashed line, not a trend: say so until there are two.
  if (points.length < 2) return <p data-testid="chart-not-enough">{t('budgetPage.notEnoughData')}</p>;
  const unit = (v: string) => amountText(v, budget.decimals);
  const caption = t('budgetPage.chart', { symbol: budget.assetSymbol });
  return (
    <LineChart
      caption={caption}
      summary={t('budgetPage.chartSummary', {
        count: points.length,
        n: formatNumber(points.length),
        reserved: unit(budget.reserved),
        paid: unit(budget.paid),
        total: unit(budget.total),
      })}
      labels={points.map((p) => p.day)}
      reference={{
        label: t('budgetPage.totalNow', { total: unit(budget.total) }),
        value: plotValue(budget.total),
      }}
      series={[
        {
          label: t('budgetPage.reservedNotPaid'),
          color: '#b36b00',
          values: points.map((p) => plotValue(p.heldToDate)),
          shown: points.map((p) => unit(p.heldToDate)),
        },
        {
          label: t('budgetPage.paidToDate'),
          color: '#1e6b2f',
          values: points.map((p) => plotValue(p.paidToDate)),
          shown: points.map((p) => unit(p.paidToDate)),
        },
      ]}
    />
  );
}

export function BudgetPage({ id }: { id: string }) {
  const session = useSession();
  const { t, formatDateTime, formatNumber } = useConsoleText();
  const budget = useLoad(
    (signal) => session.api.get('/admin/v1/budgets/{id}', { path: { id }, signal }),
    [id],
  );
  const history = useLoad(
    (signal) => session.api.get('/admin/v1/budgets/{id}/history', { path: { id }, signal }),
    [id],
  );
  const claims = useLoad(
    (signal) => session.api.get('/admin/v1/claims', { query: { budgetId: id, limit: 20 }, signal }),
    [id],
  );
  // "Top up" raises the accounting total; "fund" puts the tokens on chain in the reward wallet. On
  // the development chain the faucet does the second in the same step; elsewhere the page says
  // which address needs how much.
  const [toSend, setToSend] = useState<{ address: string; amount: string } | undefined>(undefined);
  const [walletKey, setWalletKey] = useState(0);
  const topUp = async (form: FormData) => {
    const amount = field(form, 'amount');
    setToSend(undefined);
    await session.api.post('/admin/v1/budgets/{id}/top-up', { path: { id }, body: { amount } });
    budget.reload();
    if (form.get('fund') !== 'on') return;
    const wallet = await session.api
      .get('/admin/v1/budgets/{id}/reward-wallet', { path: { id } })
      .catch((error: unknown) => {
        if (error instanceof ApiError && error.status === 404) return null;
        throw error;
      });
    if (!wallet) return;
    try {
      await session.api.post('/admin/v1/budgets/{id}/reward-wallet/dev-faucet', {
        path: { id },
        body: { amount },
      });
    } catch (error) {
      // Not the development chain (3620), or no faucet on this service: the operator sends them.
      if (!(error instanceof ApiError) || error.status >= 500) throw error;
      setToSend({ address: wallet.address, amount });
    }
    setWalletKey((k) => k + 1);
  };
  return (
    <>
      <BackLink to="/console/budgets">{t('nav.budgets')}</BackLink>
      <LoadState state={budget} label={t('budgetPage.loading')}>
        {(b) => {
          return (
            <>
              <h1>{b.name}</h1>
              <p className="muted">
                {b.type === 'FIXED' ? t('budgetPage.fixedBudget') : t('budgetPage.luckyDrawBudget')} ·{' '}
                <code>{b.id}</code>
              </p>
              <StatCards
                label={t('budgetPage.figures')}
                stats={(
                  [
                    ['total', b.total],
                    ['reserved', b.reserved],
                    ['paid', b.paid],
                    ['remaining', b.remaining],
                  ] as const
                ).map(([key, value]) => ({
                  label: t(`budgetsPage.${key}`),
                  value: <Amount value={value} decimals={b.decimals} symbol={b.assetSymbol} />,
                  testId: `budget-${key}`,
                }))}
              />
              {b.rejected > 0 && (
                <p className="notice warn">
                  {t('budgetPage.rejected', { count: b.rejected, n: formatNumber(b.rejected) })}
                </p>
              )}
              <h2>{t('budgetPage.overTime')}</h2>
              <LoadState state={history} label={t('budgetPage.history')}>
                {(h) => <History budget={b} points={h.items} />}
              </LoadState>
              {session.canWrite && (
                <ActionForm
                  heading={t('budgetPage.topUp')}
                  confirmation={t('budgetPage.toppedUp')}
                  failure={t('budgetPage.notToppedUp')}
                  submit={t('budgetPage.addToBudget')}
                  resetOnSuccess
                  onSubmit={topUp}
                >
                  <TextField
                    label={t('budgetPage.amountToAdd', { symbol: b.assetSymbol })}
                    name="amount"
                    required
                    inputMode="decimal"
                    pattern="[0-9]+(\.[0-9]+)?"
                    hint={t('budgetPage.digitsHint', { count: b.decimals })}
                  />
                  <p className="muted" data-testid="top-up-vs-fund">
                    {t('budgetPage.topUpVsFund')}
                  </p>
                  <label className="checkbox">
                    <input type="checkbox" name="fund" defaultChecked /> {t('budgetPage.alsoFund')}
                  </label>
                </ActionForm>
              )}
              {toSend && (
                <p className="notice warn" role="status" data-testid="fund-by-hand">
                  {t('budgetPage.sendTokens', { amount: toSend.amount, symbol: b.assetSymbol })}{' '}
                  <code>{toSend.address}</code>
                </p>
              )}
              {/* [chain payout] */}
              <RewardWalletPanel key={walletKey} budgetId={b.id} />
              <h2>{t('budgetPage.latestClaims')}</h2>
              <LoadedList state={claims} label={t('budgetPage.claims')} empty={t('budgetPage.noClaims')}>
                {(items) => (
                  <DataTable
                    caption={t('budgetPage.latestClaims')}
                    columns={[
                      t('budgetPage.when'),
                      t('budgetPage.user'),
                      { label: t('budgetPage.amount'), numeric: true },
                      t('budgetPage.status'),
                    ]}
                  >
                    {items.map((claim) => (
                      <tr key={claim.id}>
                        <td>{formatDateTime(claim.createdAt)}</td>
                        <td>{claim.partnerUid}</td>
                        <td className="number">
                          <Amount value={claim.amount} decimals={claim.decimals} symbol={claim.assetSymbol} />
                        </td>
                        <td>
                          <StatusBadge status={claim.status} />
                        </td>
                      </tr>
                    ))}
                  </DataTable>
                )}
              </LoadedList>
              <p>
                <Link to={`/console/claims?budgetId=${b.id}`}>{t('budgetPage.allClaims')}</Link>
              </p>
            </>
          );
        }}
      </LoadState>
    </>
  );
}
