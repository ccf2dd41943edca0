// One budget: its figures, a top-up, its history as a chart, and its latest claims.
import { LineChart } from '../../shared/charts.tsx';
import { formatUnits, plotValue } from '../../shared/format.ts';
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
  if (points.length === 0) return <p>{t('budgetPage.noMovements')}</p>;
  const unit = (v: string) => formatUnits(v, budget.decimals);
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
  const topUp = async (form: FormData) => {
    await session.api.post('/admin/v1/budgets/{id}/top-up', {
      path: { id },
      body: { amount: field(form, 'amount') },
    });
    budget.reload();
  };
  return (
    <>
      <BackLink to="/console/budgets">{t('nav.budgets')}</BackLink>
      <LoadState state={budget} label={t('budgetPage.loading')}>
        {(b) => {
          const unit = (v: string) => `${formatUnits(v, b.decimals)} ${b.assetSymbol}`;
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
                  value: unit(value),
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
                </ActionForm>
              )}
              {/* [chain payout] */}
              <RewardWalletPanel budgetId={b.id} />
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
                        <td className="number">{unit(claim.amount)}</td>
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
