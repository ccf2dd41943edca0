// The end user's mission page (/app): missions of the linked partners with gauges and completed
// marks, check-in streaks, lucky-draw tickets, reward claims and balances; /app/draws/{id} shows a
// draw's commitment, seed and winners. Signed in with the platform session cookie.
import { useEffect, useState } from 'react';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { apiRequest, ApiError, query } from '../shared/api.ts';
import { gaugeRatio } from '../shared/format.ts';
import { Link, matchPath, useLocation } from '../shared/router.ts';
import { ErrorNotice, useLoad } from '../shared/ui.tsx';
import type { Loaded } from '../shared/ui.tsx';
import { chooseAndRemember, currentLanguage, LANGUAGE_NAMES, LANGUAGES, supportedLanguage } from './i18n.ts';
import type { Language } from './i18n.ts';
import { formatAmount, formatCount, formatDateTime, formatDay, formatMonth } from './locale-format.ts';
import { WalletPanel } from './WalletPanel.tsx';
import type {
  Balance,
  Me,
  MyClaim,
  MyDraw,
  MyMission,
  MyMissions,
  MyStreak,
  MyTicket,
  TicketFilter,
} from './types.ts';

const get = <T,>(url: string, signal?: AbortSignal) => apiRequest<T>('GET', url, signal ? { signal } : {});

/** Set at sign-out: the next sign-in asks the login provider for the login again (switch accounts). */
const SIGNED_OUT_KEY = 'missions.signed-out';

function remember(key: string, value: string | null): void {
  try {
    if (value === null) window.localStorage.removeItem(key);
    else window.localStorage.setItem(key, value);
  } catch {
    // storage refused: the provider may then sign the same user in again
  }
}

function signedOutHere(): boolean {
  try {
    return window.localStorage.getItem(SIGNED_OUT_KEY) !== null;
  } catch {
    return false;
  }
}

function signInHref(): string {
  return `/v1/login${query({
    returnTo: window.location.pathname + window.location.search,
    prompt: signedOutHere() ? 'login' : undefined,
  })}`;
}

/** The page's translations and its current language (for Intl formatting and ?lang=). */
function usePageLanguage(): { t: TFunction; lang: Language } {
  const { t, i18n } = useTranslation();
  return { t, lang: currentLanguage(i18n) };
}

/** Loading, then the error, then the content, in the page's language (the shared one is English). */
function Loading<T>({ state, children }: { state: Loaded<T>; children: (data: T) => ReactNode }) {
  const { t } = usePageLanguage();
  return (
    <>
      <ErrorNotice error={state.error} />
      {state.data === undefined ? (
        state.loading ? (
          <p role="status" className="muted">
            {t('page.loading')}
          </p>
        ) : null
      ) : (
        children(state.data)
      )}
    </>
  );
}

const TONES: Record<string, string> = {
  SUCCEEDED: 'ok',
  DRAWN: 'info',
  RECEIVED: 'info',
  COMMITTED: 'info',
  REQUESTED: 'info',
  RESERVED: 'muted',
  REJECTED: 'danger',
  FAILED: 'danger',
};

/** A status badge in the page's language (the same look as the console's). */
function Status({ status }: { status: string }) {
  const { t } = usePageLanguage();
  return (
    <span className={`badge ${TONES[status] ?? 'muted'}`}>
      {t(`status.${status}`, { defaultValue: status.replaceAll('_', ' ').toLowerCase() })}
    </span>
  );
}

/** A period key as the language says it: ONCE, W2026-11-16 (a week), 2026-11-23 (a day), 2026-11. */
function describePeriod(periodKey: string, t: TFunction, lang: Language): string {
  if (periodKey === 'ONCE') return t('missions.once');
  if (periodKey.startsWith('W')) return t('missions.weekOf', { date: formatDay(periodKey.slice(1), lang) });
  if (/^\d{4}-\d{2}-\d{2}$/.test(periodKey)) return formatDay(periodKey, lang);
  if (/^\d{4}-\d{2}$/.test(periodKey)) return formatMonth(periodKey, lang);
  return periodKey;
}

/** The language switcher: the five languages in their own names; the choice is remembered. */
function LanguageSwitcher() {
  const { t, i18n } = useTranslation();
  return (
    <div className="language">
      <label htmlFor="page-language">{t('page.language')}</label>{' '}
      <select
        id="page-language"
        value={currentLanguage(i18n)}
        onChange={(e) => {
          const lang = supportedLanguage(e.currentTarget.value);
          if (lang) void chooseAndRemember(i18n, lang);
        }}
      >
        {LANGUAGES.map((l) => (
          <option key={l} value={l} lang={l}>
            {LANGUAGE_NAMES[l]}
          </option>
        ))}
      </select>
    </div>
  );
}

/** Refetch when the user comes back to the tab (the partner app may have reported progress). */
function useReloadOnReturn(reloads: Array<() => void>) {
  useEffect(() => {
    const onVisible = () => {
      if (document.visibilityState === 'visible') for (const reload of reloads) reload();
    };
    document.addEventListener('visibilitychange', onVisible);
    return () => document.removeEventListener('visibilitychange', onVisible);
  }, [reloads]);
}

function Gauge({ mission }: { mission: MyMission }) {
  const { t, lang } = usePageLanguage();
  const measured = gaugeRatio(mission.current, mission.target);
  const counts = {
    current: formatCount(mission.current ?? 0, lang),
    target: formatCount(mission.target ?? 0, lang),
  };
  const label = t('gauge.label', counts);
  // No target: no bar to fill; a completed mission is done whatever count it carries.
  if (measured === undefined) {
    return (
      <p className="gauge-text" data-testid="gauge-text">
        {mission.completed
          ? t('gauge.done')
          : mission.current === null || mission.current === 0
            ? t('gauge.notStarted')
            : t('gauge.progress', { current: formatCount(mission.current, lang) })}
      </p>
    );
  }
  const ratio = mission.completed ? 1 : measured;
  const percent = Math.round(ratio * 100);
  return (
    <div className="gauge-row">
      <div
        className={`gauge${mission.completed ? ' done' : ''}`}
        role="progressbar"
        aria-label={t('gauge.name', { title: mission.title })}
        aria-valuemin={0}
        aria-valuemax={mission.target ?? 100}
        aria-valuenow={Math.min(mission.current ?? 0, mission.target ?? 0)}
        aria-valuetext={t(mission.completed ? 'gauge.valueTextDone' : 'gauge.valueText', counts)}
      >
        <div className="gauge-fill" style={{ width: `${percent}%` }} />
      </div>
      <span className="gauge-text" data-testid="gauge-text">
        {label}
      </span>
    </div>
  );
}

/** Why a reward was not paid, in the user's words (docs/rewards.md "Linking late"). */
function refusal(claim: MyMission['claim'], t: TFunction): string | null {
  if (claim?.status !== 'REJECTED') return null;
  if (claim.reason === 'BUDGET_EXHAUSTED') {
    return claim.grantedOnLink ? t('reward.budgetBeforeLink') : t('reward.budget');
  }
  if (claim.reason === 'EXPIRED') return t('reward.expired');
  if (claim.reason === 'CAP_REACHED') return t('reward.cap');
  return t('reward.notPaid');
}

function Reward({ reward, claim }: { reward: MyMission['reward']; claim: MyMission['claim'] }) {
  const { t, lang } = usePageLanguage();
  if (!reward) return null;
  const refused = refusal(claim, t);
  return (
    <>
      <p className="reward">
        {reward.type === 'LUCKY_DRAW'
          ? t('reward.ticket', { symbol: reward.assetSymbol })
          : t('reward.amount', {
              amount: formatAmount(reward.amount ?? '', lang),
              symbol: reward.assetSymbol,
            })}
      </p>
      {refused ? (
        <p className="reward-refused" data-testid="reward-refused">
          {refused}
        </p>
      ) : null}
    </>
  );
}

function MissionCard({ mission }: { mission: MyMission }) {
  const { t, lang } = usePageLanguage();
  return (
    <li className={`mission${mission.completed ? ' completed' : ''}`} data-mission-key={mission.missionKey}>
      <div className="mission-head">
        <h4>{mission.title}</h4>
        {mission.completed ? (
          <span className="done-mark">
            <span aria-hidden="true">✓ </span>
            {t('missions.completed')}
          </span>
        ) : null}
      </div>
      <p className="muted period">
        {mission.recurrence === 'ONE_TIME'
          ? t('missions.once')
          : `${t(`missions.${mission.recurrence.toLowerCase()}`, { defaultValue: mission.recurrence.toLowerCase() })} · ${describePeriod(mission.periodKey, t, lang)}`}
        {mission.completedAt &&
          ` · ${t('missions.doneAt', { when: formatDateTime(mission.completedAt, lang) })}`}
      </p>
      <Gauge mission={mission} />
      <Reward reward={mission.reward} claim={mission.claim} />
    </li>
  );
}

function Streaks({ streaks }: { streaks: MyStreak[] }) {
  const { t, lang } = usePageLanguage();
  if (streaks.length === 0) return null;
  return (
    <ul className="streaks">
      {streaks.map((s) => (
        <li key={s.promotionId} className="streak">
          <span className="streak-count" aria-hidden="true">
            {s.current}
          </span>
          <span>
            <strong>{t('streak.current', { count: s.current })}</strong>{' '}
            {t('streak.in', { promotion: s.promotionTitle })}
            <br />
            <span className="muted">
              {t('streak.best', { count: s.best })}
              {' · '}
              {s.lastCheckDate
                ? t('streak.last', { date: formatDay(s.lastCheckDate, lang) })
                : t('streak.none')}
            </span>
          </span>
        </li>
      ))}
    </ul>
  );
}

/** Missions grouped by partner, then promotion, then mission group, in the order the service gives. */
function Missions({ data }: { data: MyMissions }) {
  const { t } = usePageLanguage();
  if (data.items.length === 0) return <p>{t('missions.none')}</p>;
  const partners: Array<{
    id: string;
    name: string;
    promotions: Array<{
      id: string;
      title: string;
      groups: Array<{ id: string; title: string; missions: MyMission[] }>;
    }>;
  }> = [];
  for (const m of data.items) {
    let partner = partners.find((p) => p.id === m.partnerId);
    if (!partner) partners.push((partner = { id: m.partnerId, name: m.partnerName, promotions: [] }));
    let promotion = partner.promotions.find((p) => p.id === m.promotionId);
    if (!promotion)
      partner.promotions.push((promotion = { id: m.promotionId, title: m.promotionTitle, groups: [] }));
    let group = promotion.groups.find((g) => g.id === m.missionGroupId);
    if (!group) promotion.groups.push((group = { id: m.missionGroupId, title: m.groupTitle, missions: [] }));
    group.missions.push(m);
  }
  return (
    <>
      {partners.map((partner) => (
        <section
          key={partner.id}
          className="partner"
          aria-label={t('missions.inPartner', { partner: partner.name })}
        >
          {partners.length > 1 && <h2 className="partner-name">{partner.name}</h2>}
          {partner.promotions.map((promotion) => {
            const done = promotion.groups.flatMap((g) => g.missions).filter((m) => m.completed).length;
            const total = promotion.groups.flatMap((g) => g.missions).length;
            return (
              <article key={promotion.id} className="promotion">
                <h3>
                  {promotion.title}{' '}
                  <span className="muted count">{t('missions.doneCount', { done, total })}</span>
                </h3>
                <Streaks streaks={data.streaks.filter((s) => s.promotionId === promotion.id)} />
                {promotion.groups.map((group) => (
                  <div key={group.id} className="mission-group">
                    {promotion.groups.length > 1 && <p className="group-title">{group.title}</p>}
                    <ul className="missions">
                      {group.missions.map((m) => (
                        <MissionCard key={m.missionId} mission={m} />
                      ))}
                    </ul>
                  </div>
                ))}
              </article>
            );
          })}
        </section>
      ))}
    </>
  );
}

const TICKET_FILTERS: Array<{ value: TicketFilter; label: string }> = [
  { value: 'NOT_RECEIVED', label: 'tickets.toEarn' },
  { value: 'RECEIVED', label: 'tickets.received' },
  { value: 'DRAWN', label: 'tickets.drawn' },
];

function Tickets() {
  const { t, lang } = usePageLanguage();
  const [filter, setFilter] = useState<TicketFilter>('RECEIVED');
  // Titles come back in the page's language (?lang=, docs/i18n.md).
  const tickets = useLoad(
    (signal) => get<{ items: MyTicket[] }>(`/v1/me/tickets${query({ filter, lang })}`, signal),
    [filter, lang],
  );
  return (
    <section aria-labelledby="tickets-heading" className="panel">
      <h2 id="tickets-heading">{t('tickets.heading')}</h2>
      <div className="tabs" role="group" aria-label={t('tickets.show')}>
        {TICKET_FILTERS.map((f) => (
          <button
            key={f.value}
            type="button"
            aria-pressed={filter === f.value}
            onClick={() => setFilter(f.value)}
          >
            {t(f.label)}
          </button>
        ))}
      </div>
      <Loading state={tickets}>
        {(data) =>
          data.items.length === 0 ? (
            <p className="muted">
              {filter === 'NOT_RECEIVED'
                ? t('tickets.noneToEarn')
                : filter === 'RECEIVED'
                  ? t('tickets.noneReceived')
                  : t('tickets.noneDrawn')}
            </p>
          ) : (
            <ul className="plain-list">
              {data.items.map((ticket) => (
                <li key={ticket.id ?? `${ticket.missionId}-${ticket.periodKey}`}>
                  <strong>{ticket.missionTitle}</strong>{' '}
                  <span className="muted">{describePeriod(ticket.periodKey, t, lang)}</span>{' '}
                  {ticket.status === 'NOT_RECEIVED' ? (
                    <span className="muted">{t('tickets.howToEarn')}</span>
                  ) : ticket.status === 'DRAWN' ? (
                    <>
                      {ticket.won ? (
                        <span className="badge ok">{t('tickets.won')}</span>
                      ) : (
                        <span className="badge muted">{t('tickets.lost')}</span>
                      )}{' '}
                      {ticket.drawId && (
                        <Link to={`/app/draws/${ticket.drawId}`}>{t('tickets.seeDraw')}</Link>
                      )}
                    </>
                  ) : (
                    <Status status="RECEIVED" />
                  )}
                </li>
              ))}
            </ul>
          )
        }
      </Loading>
    </section>
  );
}

const CLAIM_FILTERS = ['', 'RESERVED', 'REQUESTED', 'SUCCEEDED', 'FAILED', 'REJECTED'];

function Claims({
  claims,
  status,
  setStatus,
}: {
  claims: Loaded<{ items: MyClaim[] }>;
  status: string;
  setStatus: (s: string) => void;
}) {
  const { t, lang } = usePageLanguage();
  return (
    <section aria-labelledby="claims-heading" className="panel">
      <h2 id="claims-heading">{t('claims.heading')}</h2>
      <label htmlFor="claim-status">{t('claims.status')}</label>
      <select id="claim-status" value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
        {CLAIM_FILTERS.map((s) => (
          <option key={s} value={s}>
            {s === '' ? t('claims.all') : t(`status.${s}`)}
          </option>
        ))}
      </select>
      <Loading state={claims}>
        {(data) =>
          data.items.length === 0 ? (
            <p className="muted">
              {status === '' ? t('claims.none') : t('claims.noneWith', { status: t(`status.${status}`) })}
            </p>
          ) : (
            <ul className="plain-list claims">
              {data.items.map((c) => (
                <li key={c.id}>
                  <span className="amount">
                    {formatAmount(c.amount, lang, c.decimals)} {c.assetSymbol}
                  </span>{' '}
                  <Status status={c.status} />{' '}
                  <span className="muted">
                    {c.source === 'DRAW'
                      ? t('claims.draw')
                      : c.source === 'GROUP'
                        ? t('claims.group')
                        : c.source === 'STREAK'
                          ? t('claims.streak')
                          : t('claims.mission')}{' '}
                    · {formatDateTime(c.createdAt, lang)}
                  </span>
                  {/* [chain payout] the transfer of a claim paid on chain, linked to the explorer. */}
                  {c.txHash && (
                    <span className="tx" data-testid="claim-tx" data-tx-hash={c.txHash}>
                      {` · ${t('claims.tx')} `}
                      {c.explorerUrl ? (
                        <a href={c.explorerUrl} rel="noreferrer" target="_blank">
                          {c.txHash.slice(0, 10)}…
                        </a>
                      ) : (
                        <code title={c.txHash}>{c.txHash.slice(0, 10)}…</code>
                      )}
                    </span>
                  )}
                </li>
              ))}
            </ul>
          )
        }
      </Loading>
    </section>
  );
}

function Balances({ balances }: { balances: Loaded<{ items: Balance[] }> }) {
  const { t, lang } = usePageLanguage();
  return (
    <section aria-labelledby="balances-heading" className="panel">
      <h2 id="balances-heading">{t('balances.heading')}</h2>
      <Loading state={balances}>
        {(data) =>
          data.items.length === 0 ? (
            <p className="muted">{t('balances.none')}</p>
          ) : (
            <ul className="balances">
              {data.items.map((b) => (
                <li key={b.assetId}>
                  <span className="balance" data-testid={`balance-${b.symbol}`}>
                    {formatAmount(b.balance, lang, b.decimals)}
                  </span>{' '}
                  <abbr title={b.name}>{b.symbol}</abbr>
                </li>
              ))}
            </ul>
          )
        }
      </Loading>
    </section>
  );
}

function Home({ me }: { me: Me }) {
  const { t, lang } = usePageLanguage();
  // Titles come back in the page's language (?lang=, docs/i18n.md); a switch fetches them again.
  const missions = useLoad((signal) => get<MyMissions>(`/v1/me/missions${query({ lang })}`, signal), [lang]);
  const balances = useLoad((signal) => get<{ items: Balance[] }>('/v1/me/balances', signal), []);
  const [claimStatus, setClaimStatus] = useState('');
  const claims = useLoad(
    (signal) => get<{ items: MyClaim[] }>(`/v1/me/claims${query({ status: claimStatus })}`, signal),
    [claimStatus],
  );
  const [reloads] = useState(() => [missions.reload, balances.reload, claims.reload]);
  useReloadOnReturn(reloads);
  if (me.mappings.length === 0) {
    return (
      <div className="notice">
        <p>
          <strong>{t('page.noLinkTitle')}</strong>
        </p>
        <p>{t('page.noLinkBody')}</p>
      </div>
    );
  }
  return (
    <>
      <section aria-labelledby="missions-heading">
        <div className="section-head">
          <h2 id="missions-heading">{t('missions.heading')}</h2>
          <button type="button" className="secondary small" onClick={() => reloads.forEach((r) => r())}>
            {t('missions.refresh')}
          </button>
        </div>
        <Loading state={missions}>{(data) => <Missions data={data} />}</Loading>
      </section>
      <WalletPanel />
      <Balances balances={balances} />
      <Claims claims={claims} status={claimStatus} setStatus={setClaimStatus} />
      <Tickets />
    </>
  );
}

function DrawPage({ id }: { id: string }) {
  const { t, lang } = usePageLanguage();
  const draw = useLoad((signal) => get<MyDraw>(`/v1/draws/${encodeURIComponent(id)}`, signal), [id]);
  return (
    <>
      <p>
        <Link to="/app">{t('draw.back')}</Link>
      </p>
      <Loading state={draw}>
        {(d) => (
          <article className="panel">
            <h2>
              {d.title} <Status status={d.status} />
            </h2>
            <dl className="facts">
              <dt>{t('draw.prize')}</dt>
              <dd>
                {formatAmount(d.prizeAmount, lang)} {d.assetSymbol} × {formatCount(d.winnersCount, lang)}
              </dd>
              <dt>{d.status === 'DRAWN' ? t('draw.drawn') : t('draw.drawTime')}</dt>
              <dd>{formatDateTime(d.drawnAt ?? d.scheduledAt, lang)}</dd>
              <dt>{t('draw.commitment')}</dt>
              <dd>
                <code>{d.commitment}</code>
              </dd>
              <dt>{t('draw.seed')}</dt>
              <dd>{d.seed ? <code>{d.seed}</code> : t('draw.seedLater')}</dd>
              {d.status === 'DRAWN' && (
                <>
                  <dt>{t('draw.tickets')}</dt>
                  <dd>{formatCount(d.ticketCount ?? 0, lang)}</dd>
                  <dt>{t('draw.winners')}</dt>
                  <dd>
                    {d.winners && d.winners.length > 0
                      ? d.winners.map((w) => <code key={w.ticketId}>{w.ticketId} </code>)
                      : t('draw.noWinners')}
                  </dd>
                </>
              )}
            </dl>
            <p className="muted">{t('draw.explain')}</p>
          </article>
        )}
      </Loading>
    </>
  );
}

export function MissionPage() {
  const { t } = usePageLanguage();
  const { path } = useLocation();
  const me = useLoad((signal) => get<Me>('/v1/me', signal), []);
  const drawMatch = matchPath('/app/draws/:id', path);
  const signedOut = me.error instanceof ApiError && me.error.status === 401;
  const [signingOut, setSigningOut] = useState<unknown>(undefined);
  // Signed in again: the next sign-out sets the mark anew.
  useEffect(() => {
    if (me.data) remember(SIGNED_OUT_KEY, null);
  }, [me.data]);

  useEffect(() => {
    document.title = drawMatch ? t('page.drawTitle') : t('page.title');
  }, [drawMatch, t]);

  const signOut = async () => {
    try {
      await apiRequest('POST', '/v1/logout');
      remember(SIGNED_OUT_KEY, '1');
      window.location.assign('/app');
    } catch (error) {
      setSigningOut(error);
    }
  };

  return (
    <div className="mission-page">
      <header className="top">
        <h1>{t('page.title')}</h1>
        <LanguageSwitcher />
        {me.data && (
          <div className="who">
            <span>{me.data.displayName ?? t('page.signedIn')}</span>
            <button type="button" className="secondary small" onClick={() => void signOut()}>
              {t('page.signOut')}
            </button>
          </div>
        )}
      </header>
      <main id="main">
        <ErrorNotice error={signingOut} title={t('page.notSignedOut')} />
        {drawMatch ? (
          <DrawPage id={drawMatch.id ?? ''} />
        ) : signedOut ? (
          <div className="signin-panel">
            <p>{t('page.signInPrompt')}</p>
            <a className="button" href={signInHref()}>
              {t('page.signIn')}
            </a>
          </div>
        ) : (
          <Loading state={me}>
            {(data) => (
              <>
                {data.mappings.length > 0 && (
                  <p className="muted linked">
                    {t('page.linked', { partners: data.mappings.map((m) => m.partnerName).join(', ') })}
                  </p>
                )}
                <Home me={data} />
              </>
            )}
          </Loading>
        )}
      </main>
    </div>
  );
}
