// One mission in its group's table; "Edit" opens its title and target (the key and recurrence
// never change: partners report by the key) and its reward.
import { useState } from 'react';
import { TextField } from '../../../shared/ui.tsx';
import { ActionForm } from '../../components/ActionForm.tsx';
import { field } from '../../forms.ts';
import { useSession } from '../../session.tsx';
import type { Budget, Mission, RewardView } from '../../types.ts';
import { RewardForm, RewardText } from './RewardForm.tsx';
import { TitleFields, titlesBody, titlesOf } from '../../components/TitleFields.tsx';

export function MissionRow({
  mission,
  reward,
  budgets,
  onChanged,
}: {
  mission: Mission;
  reward: RewardView | undefined;
  budgets: Budget[];
  onChanged: () => void;
}) {
  const session = useSession();
  const [open, setOpen] = useState(false);
  const save = async (form: FormData) => {
    const target = field(form, 'target');
    await session.api.patch('/admin/v1/missions/{missionId}', {
      path: { missionId: mission.id },
      body: {
        title: field(form, 'title'),
        target: target === '' ? null : Number(target),
        ...titlesBody(form, titlesOf(mission)),
      },
    });
    setOpen(false);
    onChanged();
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
            <ActionForm
              label={`Edit mission ${mission.title}`}
              failure="The mission was not changed"
              submit="Save mission"
              onSubmit={save}
            >
              <TextField
                label="Mission key"
                name="missionKey"
                defaultValue={mission.missionKey}
                disabled
                hint="The key and recurrence never change: partners report by the key."
              />
              <TextField label="Title" name="title" defaultValue={mission.title} required maxLength={200} />
              <TitleFields titles={titlesOf(mission)} />
              <TextField
                label="Target"
                name="target"
                type="number"
                min={1}
                step={1}
                defaultValue={mission.target ?? ''}
                hint="Empty: no target; the partner's completion is enough."
              />
            </ActionForm>
            <h4>Reward</h4>
            <RewardForm
              target={{ kind: 'missions', id: mission.id, label: mission.title }}
              budgets={budgets}
              current={reward}
              onChanged={onChanged}
            />
          </td>
        </tr>
      )}
    </>
  );
}
