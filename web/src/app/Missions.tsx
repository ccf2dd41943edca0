// The missions of the linked partners: grouped by partner, promotion and mission group, each with
// its gauge, completed mark, period and reward (amounts from the asset's decimals), and streaks.
import type { TFunction } from 'i18next';
import { gaugeRatio } from '../shared/format.ts';
import { Amount } from '../shared/values.tsx';
import { formatCount, formatDateTime, formatDay } from './locale-format.ts';
import { describePeriod, usePageLanguage } from './page-parts.tsx';
import type { MyMission, MyMissions, MyStreak } from './types.ts';

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
  const { t } = usePageLanguage();
  if (!reward) return null;
  const refused = refusal(claim, t);
  return (
    <>
      <p className="reward">
        {reward.type === 'LUCKY_DRAW'
          ? t('reward.ticket', { symbol: reward.assetSymbol })
          : t('reward.amountLabel')}{' '}
        {reward.type === 'LUCKY_DRAW' ? null : (
          <Amount value={reward.amount ?? '0'} decimals={reward.decimals} symbol={reward.assetSymbol} />
        )}
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
export function Missions({ data }: { data: MyMissions }) {
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
