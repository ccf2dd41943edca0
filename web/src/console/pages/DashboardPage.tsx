// Dashboard: completions, rewards and payouts per day over a window, and where each budget stands.
import { query } from '../../shared/api.ts';
import { BarChart } from '../../shared/charts.tsx';
import { addDecimals, formatUnits, plotValue } from '../../shared/format.ts';
import { Link, navigate, useLocation } from '../../shared/router.ts';
import { LoadState, SelectField, useLoad } from '../../shared/ui.tsx';
import { useSession } from '../session.tsx';
import type { Budget, Items, Partner } from '../types.ts';
import { BudgetTable } from './BudgetsPage.tsx';

interface DailyActivity {
  from: string;
  to: string;
  days: Array<{
    day: string;
    completions: number;
    rewardsGranted: number;
    rewardsRefused: number;
    payouts: Array<{ assetId: string; symbol: string; decimals: number; amount: string; count: number }>;
  }>;
}

const WINDOWS = [
  { value: '7', label: 'Last 7 days' },
  { value: '14', label: 'Last 14 days' },
  { value: '30', label: 'Last 30 days' },
  { value: '90', label: 'Last 90 days' },
];

function Activity({ data }: { data: DailyActivity }) {
  const labels = data.days.map((d) => d.day);
  const sum = (pick: (d: DailyActivity['days'][number]) => number) => data.days.reduce((n, d) => n + pick(d), 0);
  const assets = new Map<string, { symbol: string; decimals: number }>();
  for (const d of data.days) for (const p of d.payouts) assets.set(p.assetId, { symbol: p.symbol, decimals: p.decimals });
  const paid = (assetId: string, day: DailyActivity['days'][number]) => day.payouts.find((p) => p.assetId === assetId)?.amount ?? '0';
  return (
    <>
      <div className="cards">
        <div className="card">
          <div className="muted">Missions completed</div>
          <div className="stat">{sum((d) => d.completions)}</div>
        </div>
        <div className="card">
          <div className="muted">Rewards granted</div>
          <div className="stat">{sum((d) => d.rewardsGranted)}</div>
          {sum((d) => d.rewardsRefused) > 0 && <div className="muted">{sum((d) => d.rewardsRefused)} refused: budget empty</div>}
        </div>
        {[...assets].map(([assetId, asset]) => (
          <div className="card" key={assetId}>
            <div className="muted">Paid out in {asset.symbol}</div>
            <div className="stat">
              {formatUnits(
                data.days.reduce((total, d) => addDecimals(total, paid(assetId, d)), '0'),
                asset.decimals,
              )}
            </div>
          </div>
        ))}
        {assets.size === 0 && (
          <div className="card">
            <div className="muted">Paid out</div>
            <div className="stat">0</div>
          </div>
        )}
      </div>
      <BarChart
        caption="Completions and rewards per day (UTC)"
        summary={`${sum((d) => d.completions)} completions and ${sum((d) => d.rewardsGranted)} rewards from ${data.from} to ${data.to}.`}
        labels={labels}
        series={[
          { label: 'Completions', color: '#0b5cad', values: data.days.map((d) => d.completions) },
          { label: 'Rewards granted', color: '#b36b00', values: data.days.map((d) => d.rewardsGranted) },
        ]}
      />
      {[...assets].map(([assetId, asset]) => (
        <BarChart
          key={assetId}
          caption={`Payouts per day in ${asset.symbol}`}
          summary={`Amounts of ${asset.symbol} paid each day from ${data.from} to ${data.to}.`}
          labels={labels}
          series={[
            {
              label: `Paid (${asset.symbol})`,
              color: '#1e6b2f',
              values: data.days.map((d) => plotValue(paid(assetId, d))),
              shown: data.days.map((d) => formatUnits(paid(assetId, d), asset.decimals)),
            },
          ]}
        />
      ))}
    </>
  );
}

export function DashboardPage() {
  const session = useSession();
  const { search } = useLocation();
  const days = search.get('days') ?? '14';
  const partnerId = search.get('partnerId') ?? '';
  const partners = useLoad(() => session.api<Items<Partner>>('GET', '/admin/v1/partners?limit=500'), []);
  const activity = useLoad(() => session.api<DailyActivity>('GET', `/admin/v1/reports/daily${query({ days, partnerId })}`), [days, partnerId]);
  const budgets = useLoad(() => session.api<Items<Budget>>('GET', '/admin/v1/budgets?limit=500'), []);
  const setFilter = (name: string, value: string) => {
    const next = new URLSearchParams(search);
    if (value === '') next.delete(name);
    else next.set(name, value);
    navigate(`/console${next.size > 0 ? `?${next.toString()}` : ''}`, { replace: true });
  };
  return (
    <>
      <h1>Dashboard</h1>
      <div className="filters">
        <SelectField label="Period" name="days" value={days} onChange={(e) => setFilter('days', e.currentTarget.value)} options={WINDOWS} />
        <SelectField
          label="Partner"
          name="partnerId"
          value={partnerId}
          onChange={(e) => setFilter('partnerId', e.currentTarget.value)}
          options={[{ value: '', label: 'All partners' }, ...(partners.data?.items ?? []).map((p) => ({ value: p.id, label: p.name }))]}
        />
      </div>
      <LoadState state={activity} label="activity">
        {(data) => <Activity data={data} />}
      </LoadState>
      <h2>Budgets</h2>
      <LoadState state={budgets} label="budgets">
        {(data) =>
          data.items.length === 0 ? (
            <p>
              No budgets yet. <Link to="/console/budgets">Create one</Link>.
            </p>
          ) : (
            <BudgetTable budgets={data.items} />
          )
        }
      </LoadState>
    </>
  );
}
