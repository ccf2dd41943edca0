// The end user's mission page (/app): missions of the linked partners with gauges and completed
// marks, check-in streaks, lucky-draw tickets, reward claims and balances; /app/draws/{id} shows a
// draw's commitment, seed and winners. Signed in with the platform session cookie.
import { useEffect, useState } from 'react';
import { apiRequest, ApiError, query } from '../shared/api.ts';
import { describePeriod, formatDateTime, formatUnits, gaugeLabel, gaugeRatio } from '../shared/format.ts';
import { Link, matchPath, useLocation } from '../shared/router.ts';
import { ErrorNotice, LoadState, StatusBadge, useLoad } from '../shared/ui.tsx';
import type { Loaded } from '../shared/ui.tsx';
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
  const measured = gaugeRatio(mission.current, mission.target);
  const label = gaugeLabel(mission.current, mission.target);
  // No target: no bar to fill; a completed mission is done whatever count it carries.
  if (measured === undefined) {
    return (
      <p className="gauge-text" data-testid="gauge-text">
        {mission.completed
          ? 'Done'
          : mission.current === null || mission.current === 0
            ? 'Not started'
            : `Progress: ${mission.current}`}
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
        aria-label={`${mission.title} progress`}
        aria-valuemin={0}
        aria-valuemax={mission.target ?? 100}
        aria-valuenow={Math.min(mission.current ?? 0, mission.target ?? 0)}
        aria-valuetext={`${label}${mission.completed ? ', completed' : ''}`}
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
function refusal(claim: MyMission['claim']): string | null {
  if (claim?.status !== 'REJECTED') return null;
  if (claim.reason === 'BUDGET_EXHAUSTED') {
    return claim.grantedOnLink
      ? 'The budget ran out before you linked your account.'
      : 'The budget for this reward has run out.';
  }
  if (claim.reason === 'EXPIRED')
    return 'You completed this too long before linking your account to be rewarded.';
  if (claim.reason === 'CAP_REACHED') return 'The daily limit for this reward was reached.';
  return 'This reward was not paid.';
}

function Reward({ reward, claim }: { reward: MyMission['reward']; claim: MyMission['claim'] }) {
  if (!reward) return null;
  const refused = refusal(claim);
  return (
    <>
      <p className="reward">
        Reward:{' '}
        {reward.type === 'LUCKY_DRAW'
          ? `a lucky-draw ticket (${reward.assetSymbol} prizes)`
          : `${reward.amount ?? ''} ${reward.assetSymbol}`}
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
  return (
    <li className={`mission${mission.completed ? ' completed' : ''}`} data-mission-key={mission.missionKey}>
      <div className="mission-head">
        <h4>{mission.title}</h4>
        {mission.completed ? (
          <span className="done-mark">
            <span aria-hidden="true">✓ </span>Completed
          </span>
        ) : null}
      </div>
      <p className="muted period">
        {mission.recurrence === 'ONE_TIME'
          ? 'Once'
          : `${mission.recurrence.toLowerCase()} · ${describePeriod(mission.periodKey)}`}
        {mission.completedAt && ` · done ${formatDateTime(mission.completedAt)}`}
      </p>
      <Gauge mission={mission} />
      <Reward reward={mission.reward} claim={mission.claim} />
    </li>
  );
}

function Streaks({ streaks }: { streaks: MyStreak[] }) {
  if (streaks.length === 0) return null;
  return (
    <ul className="streaks">
      {streaks.map((s) => (
        <li key={s.promotionId} className="streak">
          <span className="streak-count" aria-hidden="true">
            {s.current}
          </span>
          <span>
            <strong>
              {s.current}-day check-in streak{s.current === 1 ? '' : ''}
            </strong>{' '}
            in {s.promotionTitle}
            <br />
            <span className="muted">
              Best {s.best} day{s.best === 1 ? '' : 's'}
              {s.lastCheckDate ? ` · last check-in ${s.lastCheckDate}` : ' · no check-in yet'}
            </span>
          </span>
        </li>
      ))}
    </ul>
  );
}

/** Missions grouped by partner, then promotion, then mission group, in the order the service gives. */
function Missions({ data }: { data: MyMissions }) {
  if (data.items.length === 0) return <p>No active missions right now.</p>;
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
        <section key={partner.id} className="partner" aria-label={`Missions in ${partner.name}`}>
          {partners.length > 1 && <h2 className="partner-name">{partner.name}</h2>}
          {partner.promotions.map((promotion) => {
            const done = promotion.groups.flatMap((g) => g.missions).filter((m) => m.completed).length;
            const total = promotion.groups.flatMap((g) => g.missions).length;
            return (
              <article key={promotion.id} className="promotion">
                <h3>
                  {promotion.title} <span className="muted count">{`${done}/${total} done`}</span>
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
  { value: 'NOT_RECEIVED', label: 'To earn' },
  { value: 'RECEIVED', label: 'Received' },
  { value: 'DRAWN', label: 'Drawn' },
];

function Tickets() {
  const [filter, setFilter] = useState<TicketFilter>('RECEIVED');
  const tickets = useLoad(
    (signal) => get<{ items: MyTicket[] }>(`/v1/me/tickets?filter=${filter}`, signal),
    [filter],
  );
  return (
    <section aria-labelledby="tickets-heading" className="panel">
      <h2 id="tickets-heading">Lucky-draw tickets</h2>
      <div className="tabs" role="group" aria-label="Show tickets">
        {TICKET_FILTERS.map((f) => (
          <button
            key={f.value}
            type="button"
            aria-pressed={filter === f.value}
            onClick={() => setFilter(f.value)}
          >
            {f.label}
          </button>
        ))}
      </div>
      <LoadState state={tickets} label="tickets">
        {(data) =>
          data.items.length === 0 ? (
            <p className="muted">
              {filter === 'NOT_RECEIVED'
                ? 'No ticket left to earn in this period.'
                : filter === 'RECEIVED'
                  ? 'No tickets waiting for a draw.'
                  : 'No drawn tickets yet.'}
            </p>
          ) : (
            <ul className="plain-list">
              {data.items.map((t) => (
                <li key={t.id ?? `${t.missionId}-${t.periodKey}`}>
                  <strong>{t.missionTitle}</strong>{' '}
                  <span className="muted">{describePeriod(t.periodKey)}</span>{' '}
                  {t.status === 'NOT_RECEIVED' ? (
                    <span className="muted">complete the mission to get a ticket</span>
                  ) : t.status === 'DRAWN' ? (
                    <>
                      {t.won ? (
                        <span className="badge ok">won</span>
                      ) : (
                        <span className="badge muted">not a winner</span>
                      )}{' '}
                      {t.drawId && <Link to={`/app/draws/${t.drawId}`}>See the draw</Link>}
                    </>
                  ) : (
                    <StatusBadge status="RECEIVED" />
                  )}
                </li>
              ))}
            </ul>
          )
        }
      </LoadState>
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
  return (
    <section aria-labelledby="claims-heading" className="panel">
      <h2 id="claims-heading">My rewards</h2>
      <label htmlFor="claim-status">Status</label>
      <select id="claim-status" value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
        {CLAIM_FILTERS.map((s) => (
          <option key={s} value={s}>
            {s === '' ? 'All' : s.toLowerCase()}
          </option>
        ))}
      </select>
      <LoadState state={claims} label="rewards">
        {(data) =>
          data.items.length === 0 ? (
            <p className="muted">
              No rewards {status === '' ? 'yet' : `with status ${status.toLowerCase()}`}.
            </p>
          ) : (
            <ul className="plain-list claims">
              {data.items.map((c) => (
                <li key={c.id}>
                  <span className="amount">
                    {formatUnits(c.amount, c.decimals)} {c.assetSymbol}
                  </span>{' '}
                  <StatusBadge status={c.status} />{' '}
                  <span className="muted">
                    {c.source === 'DRAW'
                      ? 'lucky-draw prize'
                      : c.source === 'GROUP'
                        ? 'group bonus'
                        : c.source === 'STREAK'
                          ? 'streak reward'
                          : 'mission reward'}{' '}
                    · {formatDateTime(c.createdAt)}
                  </span>
                  {/* [chain payout] the transfer of a claim paid on chain, linked to the explorer. */}
                  {c.txHash && (
                    <span className="tx" data-testid="claim-tx" data-tx-hash={c.txHash}>
                      {' · tx '}
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
      </LoadState>
    </section>
  );
}

function Balances({ balances }: { balances: Loaded<{ items: Balance[] }> }) {
  return (
    <section aria-labelledby="balances-heading" className="panel">
      <h2 id="balances-heading">Balances</h2>
      <LoadState state={balances} label="balances">
        {(data) =>
          data.items.length === 0 ? (
            <p className="muted">Nothing paid out yet.</p>
          ) : (
            <ul className="balances">
              {data.items.map((b) => (
                <li key={b.assetId}>
                  <span className="balance" data-testid={`balance-${b.symbol}`}>
                    {formatUnits(b.balance, b.decimals)}
                  </span>{' '}
                  <abbr title={b.name}>{b.symbol}</abbr>
                </li>
              ))}
            </ul>
          )
        }
      </LoadState>
    </section>
  );
}

function Home({ me }: { me: Me }) {
  const missions = useLoad((signal) => get<MyMissions>('/v1/me/missions', signal), []);
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
          <strong>No app linked yet.</strong>
        </p>
        <p>Open a partner app and choose to link your account; its missions then appear here.</p>
      </div>
    );
  }
  return (
    <>
      <section aria-labelledby="missions-heading">
        <div className="section-head">
          <h2 id="missions-heading">Missions</h2>
          <button type="button" className="secondary small" onClick={() => reloads.forEach((r) => r())}>
            Refresh
          </button>
        </div>
        <LoadState state={missions} label="missions">
          {(data) => <Missions data={data} />}
        </LoadState>
      </section>
      <WalletPanel />
      <Balances balances={balances} />
      <Claims claims={claims} status={claimStatus} setStatus={setClaimStatus} />
      <Tickets />
    </>
  );
}

function DrawPage({ id }: { id: string }) {
  const draw = useLoad((signal) => get<MyDraw>(`/v1/draws/${encodeURIComponent(id)}`, signal), [id]);
  return (
    <>
      <p>
        <Link to="/app">← My missions</Link>
      </p>
      <LoadState state={draw} label="the draw">
        {(d) => (
          <article className="panel">
            <h2>
              {d.title} <StatusBadge status={d.status} />
            </h2>
            <dl className="facts">
              <dt>Prize</dt>
              <dd>
                {d.prizeAmount} {d.assetSymbol} × {d.winnersCount}
              </dd>
              <dt>{d.status === 'DRAWN' ? 'Drawn' : 'Draw time'}</dt>
              <dd>{formatDateTime(d.drawnAt ?? d.scheduledAt)}</dd>
              <dt>Commitment</dt>
              <dd>
                <code>{d.commitment}</code>
              </dd>
              <dt>Seed</dt>
              <dd>{d.seed ? <code>{d.seed}</code> : 'published after the draw'}</dd>
              {d.status === 'DRAWN' && (
                <>
                  <dt>Tickets</dt>
                  <dd>{d.ticketCount ?? 0}</dd>
                  <dt>Winners</dt>
                  <dd>
                    {d.winners && d.winners.length > 0
                      ? d.winners.map((w) => <code key={w.ticketId}>{w.ticketId} </code>)
                      : 'none'}
                  </dd>
                </>
              )}
            </dl>
            <p className="muted">
              The commitment is the SHA-256 of the seed, published before the draw; with the seed and the
              ticket list anyone can recompute the winners.
            </p>
          </article>
        )}
      </LoadState>
    </>
  );
}

export function MissionPage() {
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
    document.title = drawMatch ? 'Lucky draw · My missions' : 'My missions';
  }, [drawMatch]);

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
        <h1>My missions</h1>
        {me.data && (
          <div className="who">
            <span>{me.data.displayName ?? 'Signed in'}</span>
            <button type="button" className="secondary small" onClick={() => void signOut()}>
              Sign out
            </button>
          </div>
        )}
      </header>
      <main id="main">
        <ErrorNotice error={signingOut} title="Not signed out" />
        {drawMatch ? (
          <DrawPage id={drawMatch.id ?? ''} />
        ) : signedOut ? (
          <div className="signin-panel">
            <p>Sign in to see your missions, tickets and rewards.</p>
            <a className="button" href={signInHref()}>
              Sign in
            </a>
          </div>
        ) : (
          <LoadState state={me} label="your account">
            {(data) => (
              <>
                {data.mappings.length > 0 && (
                  <p className="muted linked">Linked: {data.mappings.map((m) => m.partnerName).join(', ')}</p>
                )}
                <Home me={data} />
              </>
            )}
          </LoadState>
        )}
      </main>
    </div>
  );
}
