// Dashboard: completions, rewards and payouts per day over a window, where each budget stands, the
// rewards that wait (for a link, for a wallet), and for an OWNER the development demo campaign.
import { SectionTitle } from '../components/PageHeader.tsx';
import { BarChart } from '../../shared/charts.tsx';
import { addDecimals, plotValue } from '../../shared/format.ts';
import { Amount, useAmountText } from '../../shared/values.tsx';
import { Link, navigate, useLocation } from '../../shared/router.ts';
import { LoadState, SelectField, TextField, useLoad } from '../../shared/ui.tsx';
import { useState } from 'react';
import { ActionForm } from '../components/ActionForm.tsx';
import { field } from '../forms.ts';
import { useWaitingRewards } from './claims/WaitingRewards.tsx';
import { partnerOptions, useBudgetList, usePartnerList, withAny } from '../choices.ts';
import { LoadedList } from '../components/LoadedList.tsx';
import { StatCards } from '../components/StatCards.tsx';
import { useConsoleText } from '../i18n.ts';
import { useSession } from '../session.tsx';
import type { DailyActivity } from '../types.ts';
import { BudgetTable } from './BudgetsPage.tsx';

const WINDOWS = [7, 14, 30, 90];

/** How many rewards wait for a link or a wallet, linking to where they are listed. */
function WaitingCounts({ partnerId }: { partnerId: string }) {
  const { t, formatNumber } = useConsoleText();
  const waiting = useWaitingRewards(partnerId === '' ? {} : { partnerId });
  const counts = waiting.data?.counts;
  if (!counts) return null;
  return (
    <StatCards
      label={t('dashboardPage.waitingLink')}
      stats={[
        {
          label: t('dashboardPage.waitingUnlinked'),
          value: formatNumber(counts.UNLINKED),
          testId: 'waiting-unlinked',
        },
        {
          label: t('dashboardPage.waitingNoWallet'),
          value: formatNumber(counts.NO_WALLET),
          testId: 'waiting-no-wallet',
          note: (
            <Link to={`/console/claims${partnerId === '' ? '' : `?partnerId=${partnerId}`}#waiting-heading`}>
              {t('dashboardPage.waitingLink')}
            </Link>
          ),
        },
      ]}
    />
  );
}

interface StartedDemo {
  partnerId: string;
  partnerServerUrl: string;
  partnerServerCommand: string;
}

/** The OWNER's "Start the demo" (POST /admin/v1/demo): a production service refuses it (3625). */
function DemoPanel({ onStarted }: { onStarted: () => void }) {
  const session = useSession();
  const { t } = useConsoleText();
  const [started, setStarted] = useState<StartedDemo | undefined>(undefined);
  const start = async (form: FormData) => {
    const url = field(form, 'partnerServerUrl');
    const demo = await session.api.post('/admin/v1/demo', {
      body: url === '' ? {} : { partnerServerUrl: url },
    });
    setStarted(demo);
    onStarted();
  };
  return (
    <section className="panel" data-testid="demo-panel">
      <ActionForm
        heading={t('demo.heading')}
        failure={t('demo.notStarted')}
        submit={t('demo.start')}
        onSubmit={start}
      >
        <p className="muted">{t('demo.intro')}</p>
        <TextField
          label={t('demo.partnerServerUrl')}
          name="partnerServerUrl"
          defaultValue="http://localhost:3000"
          maxLength={500}
        />
      </ActionForm>
      {started && (
        <div className="notice" role="status" data-testid="demo-ready">
          <p>{t('demo.ready', { partnerId: started.partnerId })}</p>
          <pre data-testid="demo-command">{started.partnerServerCommand}</pre>
          <p>{t('demo.then', { url: `${started.partnerServerUrl}/link?uid=alice` })}</p>
        </div>
      )}
    </section>
  );
}

function Activity({ data }: { data: DailyActivity }) {
  const { t, formatNumber } = useConsoleText();
  const amountText = useAmountText();
  const labels = data.days.map((d) => d.day);
  const sum = (pick: (d: DailyActivity['days'][number]) => number) =>
    data.days.reduce((n, d) => n + pick(d), 0);
  const assets = new Map<string, { symbol: string; decimals: number }>();
  for (const d of data.days)
    for (const p of d.payouts) assets.set(p.assetId, { symbol: p.symbol, decimals: p.decimals });
  const paid = (assetId: string, day: DailyActivity['days'][number]) =>
    day.payouts.find((p) => p.assetId === assetId)?.amount ?? '0';
  const refused = sum((d) => d.rewardsRefused);
  const completions = sum((d) => d.completions);
  const granted = sum((d) => d.rewardsGranted);
  const perDay = t('dashboardPage.perDay');
  return (
    <>
      <StatCards
        stats={[
          { label: t('dashboardPage.missionsCompleted'), value: formatNumber(completions) },
          {
            label: t('dashboardPage.rewardsGranted'),
            value: formatNumber(granted),
            note: refused > 0 && (
              <div className="muted">{t('dashboardPage.refused', { refused: formatNumber(refused) })}</div>
            ),
          },
          ...[...assets].map(([assetId, asset]) => ({
            id: assetId,
            label: t('dashboardPage.paidOutIn', { symbol: asset.symbol }),
            value: (
              <Amount
                value={data.days.reduce((total, d) => addDecimals(total, paid(assetId, d)), '0')}
                decimals={asset.decimals}
              />
            ),
          })),
          ...(assets.size === 0 ? [{ label: t('dashboardPage.paidOut'), value: formatNumber(0) }] : []),
        ]}
      />
      <BarChart
        caption={perDay}
        summary={t('dashboardPage.perDaySummary', {
          completions: formatNumber(completions),
          rewards: formatNumber(granted),
          from: data.from,
          to: data.to,
        })}
        labels={labels}
        series={[
          {
            label: t('dashboardPage.completions'),
            color: '#0b5cad',
            values: data.days.map((d) => d.completions),
            shown: data.days.map((d) => formatNumber(d.completions)),
          },
          {
            label: t('dashboardPage.rewardsGranted'),
            color: '#b36b00',
            values: data.days.map((d) => d.rewardsGranted),
            shown: data.days.map((d) => formatNumber(d.rewardsGranted)),
          },
        ]}
      />
      {[...assets].map(([assetId, asset]) => (
        <BarChart
          key={assetId}
          caption={t('dashboardPage.payoutsPerDay', { symbol: asset.symbol })}
          summary={t('dashboardPage.payoutsSummary', { symbol: asset.symbol, from: data.from, to: data.to })}
          labels={labels}
          series={[
            {
              label: t('dashboardPage.paid', { symbol: asset.symbol }),
              color: '#1e6b2f',
              values: data.days.map((d) => plotValue(paid(assetId, d))),
              shown: data.days.map((d) => amountText(paid(assetId, d), asset.decimals)),
            },
          ]}
        />
      ))}
    </>
  );
}

export function DashboardPage() {
  const session = useSession();
  const { t } = useConsoleText();
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
          label={t('dashboardPage.period')}
          name="days"
          value={days}
          onChange={(e) => setFilter('days', e.currentTarget.value)}
          options={WINDOWS.map((count) => ({
            value: String(count),
            label: t('dashboardPage.lastDays', { count }),
          }))}
        />
        <SelectField
          label={t('dashboardPage.partner')}
          name="partnerId"
          value={partnerId}
          onChange={(e) => setFilter('partnerId', e.currentTarget.value)}
          options={withAny(t('dashboardPage.allPartners'), partnerOptions(partners.data?.items))}
        />
      </div>
      <LoadState state={activity} label={t('dashboardPage.activity')}>
        {(data) => <Activity data={data} />}
      </LoadState>
      <WaitingCounts partnerId={partnerId} />
      <h2>{t('nav.budgets')}</h2>
      <LoadedList
        state={budgets}
        label={t('budgetsPage.list')}
        empty={
          <p>
            {t('dashboardPage.noBudgetsBefore')}
            <Link to="/console/budgets">{t('dashboardPage.noBudgetsLink')}</Link>
            {t('dashboardPage.noBudgetsAfter')}
          </p>
        }
      >
        {(items) => <BudgetTable budgets={items} />}
      </LoadedList>
      {session.identity.role === 'OWNER' && <DemoPanel onStarted={budgets.reload} />}
    </>
  );
}
