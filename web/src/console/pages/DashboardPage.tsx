// Dashboard: completions, rewards and payouts per day over a window, and where each budget stands.
import { SectionTitle } from '../components/PageHeader.tsx';
import { BarChart } from '../../shared/charts.tsx';
import { addDecimals, formatUnits, plotValue } from '../../shared/format.ts';
import { Link, navigate, useLocation } from '../../shared/router.ts';
import { LoadState, SelectField, useLoad } from '../../shared/ui.tsx';
import { partnerOptions, useBudgetList, usePartnerList, withAny } from '../choices.ts';
import { LoadedList } from '../components/LoadedList.tsx';
import { StatCards } from '../components/StatCards.tsx';
import { useSession } from '../session.tsx';
import type { DailyActivity } from '../types.ts';
import { BudgetTable } from './BudgetsPage.tsx';

const WINDOWS = [
  { value: '7', label: 'Last 7 days' },
  { value: '14', label: 'Last 14 days' },
  { value: '30', label: 'Last 30 days' },
  { value: '90', label: 'Last 90 days' },
];

function Activity({ data }: { data: DailyActivity }) {
  const labels = data.days.map((d) => d.day);
  const sum = (pick: (d: DailyActivity['days'][number]) => number) =>
    data.days.reduce((n, d) => n + pick(d), 0);
  const assets = new Map<string, { symbol: string; decimals: number }>();
  for (const d of data.days)
    for (const p of d.payouts) assets.set(p.assetId, { symbol: p.symbol, decimals: p.decimals });
  const paid = (assetId: string, day: DailyActivity['days'][number]) =>
    day.payouts.find((p) => p.assetId === assetId)?.amount ?? '0';
  const refused = sum((d) => d.rewardsRefused);
  return (
    <>
      <StatCards
        stats={[
          { label: 'Missions completed', value: sum((d) => d.completions) },
          {
            label: 'Rewards granted',
            value: sum((d) => d.rewardsGranted),
            note: refused > 0 && <div className="muted">{refused} refused: budget empty</div>,
          },
          ...[...assets].map(([assetId, asset]) => ({
            id: assetId,
            label: `Paid out in ${asset.symbol}`,
            value: formatUnits(
              data.days.reduce((total, d) => addDecimals(total, paid(assetId, d)), '0'),
              asset.decimals,
            ),
          })),
          ...(assets.size === 0 ? [{ label: 'Paid out', value: 0 }] : []),
        ]}
      />
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
  const partners = usePartnerList();
  const activity = useLoad(
    (signal) =>
      session.api.get('/admin/v1/reports/daily', {
        query: { days: Number(days), ...(partnerId !== '' && { partnerId }) },
        signal,
      }),
    [days, partnerId],
  );
  const budgets = useBudgetList();
  const setFilter = (name: string, value: string) => {
    const next = new URLSearchParams(search);
    if (value === '') next.delete(name);
    else next.set(name, value);
    navigate(`/console${next.size > 0 ? `?${next.toString()}` : ''}`, { replace: true });
  };
  return (
    <>
      <SectionTitle section="dashboard" />
      <div className="filters">
        <SelectField
          label="Period"
          name="days"
          value={days}
          onChange={(e) => setFilter('days', e.currentTarget.value)}
          options={WINDOWS}
        />
        <SelectField
          label="Partner"
          name="partnerId"
          value={partnerId}
          onChange={(e) => setFilter('partnerId', e.currentTarget.value)}
          options={withAny('All partners', partnerOptions(partners.data?.items))}
        />
      </div>
      <LoadState state={activity} label="activity">
        {(data) => <Activity data={data} />}
      </LoadState>
      <h2>Budgets</h2>
      <LoadedList
        state={budgets}
        label="budgets"
        empty={
          <p>
            No budgets yet. <Link to="/console/budgets">Create one</Link>.
          </p>
        }
      >
        {(items) => <BudgetTable budgets={items} />}
      </LoadedList>
    </>
  );
}
