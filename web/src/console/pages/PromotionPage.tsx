// One promotion: its settings (partner, type, start and time zone locked once it has been ACTIVE),
// its mission groups and missions, and the reward each mission or group pays.
import { useState } from 'react';
import type { FormEvent } from 'react';
import { formatDateTime, formatUnits } from '../../shared/format.ts';
import { Link } from '../../shared/router.ts';
import { ErrorNotice, LoadState, SelectField, StatusBadge, TextField, useAction, useLoad } from '../../shared/ui.tsx';
import { field, instantToLocal, localToInstant } from '../forms.ts';
import { useSession } from '../session.tsx';
import type { Budget, BudgetType, Items, Mission, MissionGroup, Partner, Promotion } from '../types.ts';
import { PROMOTION_TYPES } from './PromotionsPage.tsx';

const RECURRENCES = [
  { value: 'ONE_TIME', label: 'One time' },
  { value: 'DAILY', label: 'Daily' },
  { value: 'WEEKLY', label: 'Weekly (from Monday)' },
  { value: 'MONTHLY', label: 'Monthly' },
];

/** A reward set on a mission or a group (GET /admin/v1/promotions/{id}/rewards). */
interface RewardView {
  missionId: string | null;
  missionGroupId: string | null;
  type: BudgetType;
  budgetId: string;
  budgetName: string;
  amount: string | null;
  assetSymbol: string;
  decimals: number;
}

const LOCKED_HINT = 'Locked: the promotion has been active, so this can no longer change (error 2102).';

function Settings({ promotion, partners, onSaved }: { promotion: Promotion; partners: Partner[]; onSaved: (p: Promotion) => void }) {
  const session = useSession();
  const save = useAction();
  const [saved, setSaved] = useState(false);
  const readOnly = !session.canWrite;
  // The service refuses these once the promotion has been ACTIVE (activatedAt is set for good).
  const locked = promotion.activatedAt !== null || readOnly;
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setSaved(false);
    // Disabled (locked) fields are not in the form data, so they are never sent.
    const body: Record<string, unknown> = { title: field(form, 'title'), status: field(form, 'status') };
    const endAt = field(form, 'endAt');
    body.endAt = endAt === '' ? null : localToInstant(endAt);
    for (const name of ['partnerId', 'type', 'timezone'] as const) if (form.has(name)) body[name] = field(form, name);
    if (form.has('startAt')) body.startAt = localToInstant(field(form, 'startAt')) ?? field(form, 'startAt');
    await save.run(async () => {
      onSaved(await session.api<Promotion>('PATCH', `/admin/v1/promotions/${promotion.id}`, body));
      setSaved(true);
    });
  };
  const lockHint = promotion.activatedAt !== null ? LOCKED_HINT : undefined;
  return (
    <form onSubmit={(e) => void submit(e)} aria-labelledby="promotion-settings">
      <h2 id="promotion-settings">Settings</h2>
      <ErrorNotice error={save.error} title="The changes were not saved" />
      {saved && (
        <p className="notice ok" role="status">
          Saved.
        </p>
      )}
      <SelectField
        label="Partner"
        name="partnerId"
        defaultValue={promotion.partnerId}
        disabled={locked}
        hint={lockHint}
        options={partners.map((p) => ({ value: p.id, label: p.name }))}
      />
      <SelectField label="Type" name="type" defaultValue={promotion.type} disabled={locked} hint={lockHint} options={PROMOTION_TYPES} />
      <TextField label="Title" name="title" defaultValue={promotion.title} required maxLength={200} disabled={readOnly} />
      <TextField label="Time zone" name="timezone" defaultValue={promotion.timezone} required disabled={locked} hint={lockHint} />
      <TextField
        label="Starts"
        name="startAt"
        type="datetime-local"
        defaultValue={instantToLocal(promotion.startAt)}
        required
        disabled={locked}
        hint={lockHint}
      />
      <TextField label="Ends (optional)" name="endAt" type="datetime-local" defaultValue={instantToLocal(promotion.endAt)} disabled={readOnly} />
      <SelectField
        label="Status"
        name="status"
        defaultValue={promotion.status}
        disabled={readOnly}
        options={[
          { value: 'INACTIVE', label: 'Inactive' },
          { value: 'ACTIVE', label: 'Active' },
        ]}
      />
      {session.canWrite && (
        <div className="actions">
          <button type="submit" disabled={save.busy}>
            Save promotion
          </button>
        </div>
      )}
    </form>
  );
}

function RewardText({ reward }: { reward: RewardView | undefined }) {
  if (!reward) return <span className="muted">none</span>;
  if (reward.type === 'LUCKY_DRAW') return <span>lucky-draw ticket ({reward.budgetName})</span>;
  return (
    <span>
      {formatUnits(reward.amount ?? '0', reward.decimals)} {reward.assetSymbol} <span className="muted">({reward.budgetName})</span>
    </span>
  );
}

/** Set (or remove) the reward of a mission or a group. */
function RewardForm({ target, budgets, current, onChanged }: { target: { kind: 'missions' | 'mission-groups'; id: string; label: string }; budgets: Budget[]; current: RewardView | undefined; onChanged: () => void }) {
  const session = useSession();
  const action = useAction();
  const [type, setType] = useState<BudgetType>(current?.type ?? 'FIXED');
  const matching = budgets.filter((b) => b.type === type);
  const url = `/admin/v1/${target.kind}/${target.id}/reward`;
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    await action.run(async () => {
      await session.api('PUT', url, {
        type,
        budgetId: field(form, 'budgetId'),
        ...(type === 'FIXED' && { amount: field(form, 'amount') }),
      });
      onChanged();
    });
  };
  const remove = async () => {
    await action.run(async () => {
      await session.api('DELETE', url);
      onChanged();
    });
  };
  return (
    <form onSubmit={(e) => void submit(e)} aria-label={`Reward of ${target.label}`} className="inline-form">
      <ErrorNotice error={action.error} title="The reward was not changed" />
      <SelectField
        label="Reward type"
        name="type"
        value={type}
        onChange={(e) => setType(e.currentTarget.value as BudgetType)}
        options={[
          { value: 'FIXED', label: 'Fixed amount' },
          { value: 'LUCKY_DRAW', label: 'Lucky-draw ticket' },
        ]}
      />
      {matching.length === 0 ? (
        <p className="notice warn">
          No {type === 'FIXED' ? 'fixed' : 'lucky-draw'} budget yet. <Link to="/console/budgets">Create one</Link>.
        </p>
      ) : (
        <>
          <SelectField
            label="Budget"
            name="budgetId"
            defaultValue={current?.budgetId}
            options={matching.map((b) => ({ value: b.id, label: `${b.name} (${formatUnits(b.remaining, b.decimals)} ${b.assetSymbol} left)` }))}
          />
          {type === 'FIXED' && (
            <TextField
              label="Amount per completion"
              name="amount"
              inputMode="decimal"
              required
              pattern="[0-9]+(\.[0-9]+)?"
              defaultValue={current?.amount ?? ''}
              hint="In whole units of the budget's asset, e.g. 10 or 2.5."
            />
          )}
          <div className="actions">
            <button type="submit" disabled={action.busy}>
              Set reward
            </button>
            {current && (
              <button type="button" className="secondary" disabled={action.busy} onClick={() => void remove()}>
                Remove reward
              </button>
            )}
          </div>
        </>
      )}
    </form>
  );
}

function MissionRow({ mission, reward, budgets, onChanged }: { mission: Mission; reward: RewardView | undefined; budgets: Budget[]; onChanged: () => void }) {
  const session = useSession();
  const [open, setOpen] = useState(false);
  const save = useAction();
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const target = field(form, 'target');
    await save.run(async () => {
      await session.api('PATCH', `/admin/v1/missions/${mission.id}`, {
        title: field(form, 'title'),
        target: target === '' ? null : Number(target),
      });
      setOpen(false);
      onChanged();
    });
  };
  return (
    <>
      <tr>
        <td>
          {mission.title}
          <br />
          <code className="muted">{mission.missionKey}</code>
        </td>
        <td>{mission.recurrence.replace('_', ' ').toLowerCase()}</td>
        <td className="number">{mission.target ?? '—'}</td>
        <td>
          <RewardText reward={reward} />
        </td>
        {session.canWrite && (
          <td>
            <button type="button" className="secondary" aria-expanded={open} onClick={() => setOpen(!open)}>
              Edit<span className="visually-hidden"> {mission.title}</span>
            </button>
          </td>
        )}
      </tr>
      {open && (
        <tr>
          <td colSpan={5}>
            <form onSubmit={(e) => void submit(e)} aria-label={`Edit mission ${mission.title}`}>
              <ErrorNotice error={save.error} title="The mission was not changed" />
              <TextField label="Mission key" name="missionKey" defaultValue={mission.missionKey} disabled hint="The key and recurrence never change: partners report by the key." />
              <TextField label="Title" name="title" defaultValue={mission.title} required maxLength={200} />
              <TextField label="Target" name="target" type="number" min={1} step={1} defaultValue={mission.target ?? ''} hint="Empty: no target; the partner's completion is enough." />
              <div className="actions">
                <button type="submit" disabled={save.busy}>
                  Save mission
                </button>
              </div>
            </form>
            <h4>Reward</h4>
            <RewardForm target={{ kind: 'missions', id: mission.id, label: mission.title }} budgets={budgets} current={reward} onChanged={onChanged} />
          </td>
        </tr>
      )}
    </>
  );
}

function Group({ group, promotion, budgets, rewards, onRewardsChanged }: { group: MissionGroup; promotion: Promotion; budgets: Budget[]; rewards: RewardView[]; onRewardsChanged: () => void }) {
  const session = useSession();
  const missions = useLoad(() => session.api<Items<Mission>>('GET', `/admin/v1/mission-groups/${group.id}/missions`), [group.id]);
  const create = useAction();
  const [groupRewardOpen, setGroupRewardOpen] = useState(false);
  const changed = () => {
    missions.reload();
    onRewardsChanged();
  };
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    const target = field(form, 'target');
    await create.run(async () => {
      await session.api('POST', `/admin/v1/mission-groups/${group.id}/missions`, {
        missionKey: field(form, 'missionKey'),
        title: field(form, 'title'),
        recurrence: field(form, 'recurrence'),
        ...(target !== '' && { target: Number(target) }),
      });
      formElement.reset();
      missions.reload();
    });
  };
  const groupReward = rewards.find((r) => r.missionGroupId === group.id);
  const headingId = `group-${group.id}`;
  return (
    <section aria-labelledby={headingId} className="card group">
      <h3 id={headingId}>{group.title}</h3>
      {promotion.type === 'COMPOSITE' && (
        <p>
          Group reward (paid when every mission of the group is completed in a period): <RewardText reward={groupReward} />{' '}
          {session.canWrite && (
            <button type="button" className="link" aria-expanded={groupRewardOpen} onClick={() => setGroupRewardOpen(!groupRewardOpen)}>
              {groupRewardOpen ? 'Close' : 'Change'}
              <span className="visually-hidden"> group reward of {group.title}</span>
            </button>
          )}
        </p>
      )}
      {groupRewardOpen && <RewardForm target={{ kind: 'mission-groups', id: group.id, label: group.title }} budgets={budgets} current={groupReward} onChanged={onRewardsChanged} />}
      <LoadState state={missions} label="missions">
        {(data) =>
          data.items.length === 0 ? (
            <p>No missions in this group yet.</p>
          ) : (
            <div className="table-wrap" tabIndex={0} role="region" aria-label="Table, scrolls sideways on small screens">
              <table>
                <caption className="visually-hidden">Missions of {group.title}</caption>
                <thead>
                  <tr>
                    <th scope="col">Mission</th>
                    <th scope="col">Recurrence</th>
                    <th scope="col" className="number">
                      Target
                    </th>
                    <th scope="col">Reward</th>
                    {session.canWrite && <th scope="col">Action</th>}
                  </tr>
                </thead>
                <tbody>
                  {data.items.map((m) => (
                    <MissionRow key={`${m.id}-${m.title}-${m.target}`} mission={m} reward={rewards.find((r) => r.missionId === m.id)} budgets={budgets} onChanged={changed} />
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </LoadState>
      {session.canWrite && (
        <details>
          <summary>Add a mission to {group.title}</summary>
          <form onSubmit={(e) => void submit(e)} aria-label={`New mission in ${group.title}`}>
            <ErrorNotice error={create.error} title="The mission was not created" />
            <TextField label="Mission key" name="missionKey" required maxLength={128} pattern="[A-Za-z0-9][A-Za-z0-9._:\-]*" hint="What the partner reports, unique per partner: letters, digits and . _ : -" />
            <TextField label="Title" name="title" required maxLength={200} />
            <SelectField label="Recurrence" name="recurrence" defaultValue={promotion.type === 'DAILY_CHECK' ? 'DAILY' : 'ONE_TIME'} options={RECURRENCES} />
            <TextField label="Target (optional)" name="target" type="number" min={1} step={1} hint="When set, a completion must report metadata.current at or above it." />
            <div className="actions">
              <button type="submit" disabled={create.busy}>
                Add mission
              </button>
            </div>
          </form>
        </details>
      )}
    </section>
  );
}

export function PromotionPage({ id }: { id: string }) {
  const session = useSession();
  const promotion = useLoad(() => session.api<Promotion>('GET', `/admin/v1/promotions/${id}`), [id]);
  const partners = useLoad(() => session.api<Items<Partner>>('GET', '/admin/v1/partners?limit=500'), []);
  const groups = useLoad(() => session.api<Items<MissionGroup>>('GET', `/admin/v1/promotions/${id}/mission-groups`), [id]);
  const budgets = useLoad(() => session.api<Items<Budget>>('GET', '/admin/v1/budgets?limit=500'), []);
  const rewards = useLoad(() => session.api<Items<RewardView>>('GET', `/admin/v1/promotions/${id}/rewards`), [id]);
  const createGroup = useAction();
  const [current, setCurrent] = useState<Promotion | undefined>();
  const shown = current?.id === id ? current : promotion.data;
  const partnerName = partners.data?.items.find((p) => p.id === shown?.partnerId)?.name;

  const submitGroup = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const formElement = event.currentTarget;
    const title = field(new FormData(formElement), 'title');
    await createGroup.run(async () => {
      await session.api('POST', `/admin/v1/promotions/${id}/mission-groups`, { title });
      formElement.reset();
      groups.reload();
    });
  };

  return (
    <>
      <p>
        <Link to="/console/promotions">← Promotions</Link>
      </p>
      <LoadState state={promotion} label="the promotion">
        {() =>
          shown && (
            <>
              <h1>
                {shown.title} <StatusBadge status={shown.status} />
              </h1>
              <dl className="facts">
                <dt>Promotion id</dt>
                <dd>
                  <code>{shown.id}</code>
                </dd>
                <dt>Partner</dt>
                <dd>
                  <Link to={`/console/partners/${shown.partnerId}`}>{partnerName ?? shown.partnerId}</Link>
                </dd>
                <dt>First active</dt>
                <dd>{shown.activatedAt ? formatDateTime(shown.activatedAt) : 'never (all fields may change)'}</dd>
              </dl>
              <Settings key={shown.updatedAt + String(partners.data?.items.length)} promotion={shown} partners={partners.data?.items ?? []} onSaved={setCurrent} />

              <h2>Mission groups and missions</h2>
              <ErrorNotice error={rewards.error} title="Rewards could not be shown" />
              <LoadState state={groups} label="mission groups">
                {(data) => (
                  <>
                    {data.items.length === 0 && <p>No mission groups yet: add one, then its missions.</p>}
                    {data.items.map((g) => (
                      <Group key={g.id} group={g} promotion={shown} budgets={budgets.data?.items ?? []} rewards={rewards.data?.items ?? []} onRewardsChanged={rewards.reload} />
                    ))}
                  </>
                )}
              </LoadState>
              {session.canWrite && (
                <form onSubmit={(e) => void submitGroup(e)} aria-labelledby="new-group">
                  <h3 id="new-group">Add a mission group</h3>
                  <ErrorNotice error={createGroup.error} title="The group was not created" />
                  <TextField label="Group title" name="title" required maxLength={200} />
                  <div className="actions">
                    <button type="submit" disabled={createGroup.busy}>
                      Add group
                    </button>
                  </div>
                </form>
              )}
            </>
          )
        }
      </LoadState>
    </>
  );
}
