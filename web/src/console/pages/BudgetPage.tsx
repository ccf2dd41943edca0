// One budget: its figures, a top-up, its history as a chart, and its latest claims.
import { LineChart } from '../../shared/charts.tsx';
import { formatDateTime, formatUnits, plotValue } from '../../shared/format.ts';
import { Link } from '../../shared/router.ts';
import { RewardWalletPanel } from './chain/RewardWalletPanel.tsx';
import { LoadState, StatusBadge, TextField, useLoad } from '../../shared/ui.tsx';
import { ActionForm } from '../components/ActionForm.tsx';
import { DataTable } from '../../shared/data-table.tsx';
import { LoadedList } from '../components/LoadedList.tsx';
import { BackLink } from '../components/PageHeader.tsx';
import { StatCards } from '../components/StatCards.tsx';
import { field } from '../forms.ts';
import { useSession } from '../session.tsx';
import type { Budget, BudgetHistoryPoint } from '../types.ts';

function History({ budget, points }: { budget: Budget; points: BudgetHistoryPoint[] }) {
  if (points.length === 0) return <p>No reservations or payouts yet.</p>;
  const unit = (v: string) => formatUnits(v, budget.decimals);
  return (
    <LineChart
      caption={`Reserved and paid over time (${budget.assetSymbol})`}
      summary={`On ${points.length} days with movements; now ${unit(budget.reserved)} reserved and ${unit(budget.paid)} paid of ${unit(budget.total)}.`}
      labels={points.map((p) => p.day)}
      reference={{ label: `Total now ${unit(budget.total)}`, value: plotValue(budget.total) }}
      series={[
        {
          label: 'Reserved, not yet paid',
          color: '#b36b00',
          values: points.map((p) => plotValue(p.heldToDate)),
          shown: points.map((p) => unit(p.heldToDate)),
        },
        {
          label: 'Paid to date',
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
      <BackLink to="/console/budgets">Budgets</BackLink>
      <LoadState state={budget} label="the budget">
        {(b) => {
          const unit = (v: string) => `${formatUnits(v, b.decimals)} ${b.assetSymbol}`;
          return (
            <>
              <h1>{b.name}</h1>
              <p className="muted">
                {b.type === 'FIXED' ? 'Fixed rewards' : 'Lucky draw'} budget · <code>{b.id}</code>
              </p>
              <StatCards
                label="Budget figures"
                stats={(
                  [
                    ['Total', b.total],
                    ['Reserved', b.reserved],
                    ['Paid', b.paid],
                    ['Remaining', b.remaining],
                  ] as const
                ).map(([label, value]) => ({
                  label,
                  value: unit(value),
                  testId: `budget-${label.toLowerCase()}`,
                }))}
              />
              {b.rejected > 0 && (
                <p className="notice warn">
                  {b.rejected} claim{b.rejected === 1 ? ' was' : 's were'} refused or rejected (e.g. the
                  budget was empty).
                </p>
              )}
              <h2>Over time</h2>
              <LoadState state={history} label="the history">
                {(h) => <History budget={b} points={h.items} />}
              </LoadState>
              {session.canWrite && (
                <ActionForm
                  heading="Top up"
                  failure="The budget was not topped up"
                  submit="Add to budget"
                  resetOnSuccess
                  onSubmit={topUp}
                >
                  <TextField
                    label={`Amount to add (${b.assetSymbol})`}
                    name="amount"
                    required
                    inputMode="decimal"
                    pattern="[0-9]+(\.[0-9]+)?"
                    hint={`At most ${b.decimals} digits after the point.`}
                  />
                </ActionForm>
              )}
              {/* [chain payout] */}
              <RewardWalletPanel budgetId={b.id} />
              <h2>Latest claims</h2>
              <LoadedList state={claims} label="claims" empty="No claims on this budget yet.">
                {(items) => (
                  <DataTable
                    caption="Latest claims"
                    columns={['When', 'User', { label: 'Amount', numeric: true }, 'Status']}
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
                <Link to={`/console/claims?budgetId=${b.id}`}>All claims of this budget</Link>
              </p>
            </>
          );
        }}
      </LoadState>
    </>
  );
}
