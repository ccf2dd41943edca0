// One budget: its figures, a top-up, its history as a chart, and its latest claims.
import type { FormEvent } from 'react';
import { LineChart } from '../../shared/charts.tsx';
import { formatDateTime, formatUnits, plotValue } from '../../shared/format.ts';
import { Link } from '../../shared/router.ts';
import { ErrorNotice, LoadState, StatusBadge, TextField, useAction, useLoad } from '../../shared/ui.tsx';
import { field } from '../forms.ts';
import { useSession } from '../session.tsx';
import type { Budget, Claim, Items } from '../types.ts';

interface HistoryPoint {
  day: string;
  reserved: string;
  released: string;
  paid: string;
  heldToDate: string;
  paidToDate: string;
}

function History({ budget, points }: { budget: Budget; points: HistoryPoint[] }) {
  if (points.length === 0) return <p>No reservations or payouts yet.</p>;
  const unit = (v: string) => formatUnits(v, budget.decimals);
  return (
    <LineChart
      caption={`Reserved and paid over time (${budget.assetSymbol})`}
      summary={`On ${points.length} days with movements; now ${unit(budget.reserved)} reserved and ${unit(budget.paid)} paid of ${unit(budget.total)}.`}
      labels={points.map((p) => p.day)}
      reference={{ label: `Total now ${unit(budget.total)}`, value: plotValue(budget.total) }}
      series={[
        { label: 'Reserved, not yet paid', color: '#b36b00', values: points.map((p) => plotValue(p.heldToDate)), shown: points.map((p) => unit(p.heldToDate)) },
        { label: 'Paid to date', color: '#1e6b2f', values: points.map((p) => plotValue(p.paidToDate)), shown: points.map((p) => unit(p.paidToDate)) },
      ]}
    />
  );
}

export function BudgetPage({ id }: { id: string }) {
  const session = useSession();
  const budget = useLoad(() => session.api<Budget>('GET', `/admin/v1/budgets/${id}`), [id]);
  const history = useLoad(() => session.api<Items<HistoryPoint>>('GET', `/admin/v1/budgets/${id}/history`), [id]);
  const claims = useLoad(() => session.api<Items<Claim>>('GET', `/admin/v1/claims?budgetId=${id}&limit=20`), [id]);
  const topUp = useAction();
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const formElement = event.currentTarget;
    const amount = field(new FormData(formElement), 'amount');
    await topUp.run(async () => {
      await session.api('POST', `/admin/v1/budgets/${id}/top-up`, { amount });
      formElement.reset();
      budget.reload();
    });
  };
  return (
    <>
      <p>
        <Link to="/console/budgets">← Budgets</Link>
      </p>
      <LoadState state={budget} label="the budget">
        {(b) => {
          const unit = (v: string) => `${formatUnits(v, b.decimals)} ${b.assetSymbol}`;
          return (
            <>
              <h1>{b.name}</h1>
              <p className="muted">
                {b.type === 'FIXED' ? 'Fixed rewards' : 'Lucky draw'} budget · <code>{b.id}</code>
              </p>
              <div className="cards" aria-label="Budget figures">
                {(
                  [
                    ['Total', b.total],
                    ['Reserved', b.reserved],
                    ['Paid', b.paid],
                    ['Remaining', b.remaining],
                  ] as const
                ).map(([label, value]) => (
                  <div className="card" key={label}>
                    <div className="muted">{label}</div>
                    <div className="stat" data-testid={`budget-${label.toLowerCase()}`}>
                      {unit(value)}
                    </div>
                  </div>
                ))}
              </div>
              {b.rejected > 0 && (
                <p className="notice warn">
                  {b.rejected} claim{b.rejected === 1 ? ' was' : 's were'} refused or rejected (e.g. the budget was empty).
                </p>
              )}
              <h2>Over time</h2>
              <LoadState state={history} label="the history">
                {(h) => <History budget={b} points={h.items} />}
              </LoadState>
              {session.canWrite && (
                <form onSubmit={(e) => void submit(e)} aria-labelledby="top-up">
                  <h2 id="top-up">Top up</h2>
                  <ErrorNotice error={topUp.error} title="The budget was not topped up" />
                  <TextField label={`Amount to add (${b.assetSymbol})`} name="amount" required inputMode="decimal" pattern="[0-9]+(\.[0-9]+)?" hint={`At most ${b.decimals} digits after the point.`} />
                  <div className="actions">
                    <button type="submit" disabled={topUp.busy}>
                      Add to budget
                    </button>
                  </div>
                </form>
              )}
              <h2>Latest claims</h2>
              <LoadState state={claims} label="claims">
                {(c) =>
                  c.items.length === 0 ? (
                    <p>No claims on this budget yet.</p>
                  ) : (
                    <div className="table-wrap" tabIndex={0} role="region" aria-label="Table, scrolls sideways on small screens">
                      <table>
                        <caption className="visually-hidden">Latest claims</caption>
                        <thead>
                          <tr>
                            <th scope="col">When</th>
                            <th scope="col">User</th>
                            <th scope="col" className="number">
                              Amount
                            </th>
                            <th scope="col">Status</th>
                          </tr>
                        </thead>
                        <tbody>
                          {c.items.map((claim) => (
                            <tr key={claim.id}>
                              <td>{formatDateTime(claim.createdAt)}</td>
                              <td>{claim.partnerUid}</td>
                              <td className="number">{unit(claim.amount)}</td>
                              <td>
                                <StatusBadge status={claim.status} />
                              </td>
                            </tr>
                          ))}
                        </tbody>
                      </table>
                    </div>
                  )
                }
              </LoadState>
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
