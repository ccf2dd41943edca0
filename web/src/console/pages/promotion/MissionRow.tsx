// One mission in its group's table; "Edit" opens its title and target (the key and recurrence
// never change: partners report by the key) and its reward.
import { useState } from 'react';
import { TextField } from '../../../shared/ui.tsx';
import { ActionForm } from '../../components/ActionForm.tsx';
import { field } from '../../forms.ts';
import { useConsoleText } from '../../i18n.ts';
import { useSession } from '../../session.tsx';
import type { Budget, Mission, Recurrence, RewardView } from '../../types.ts';
import { RewardForm, RewardText } from './RewardForm.tsx';
import { TitleFields, titlesBody, titlesOf } from '../../components/TitleFields.tsx';

/** The API's recurrences, in the order the form offers them. */
export const RECURRENCES: Recurrence[] = ['ONE_TIME', 'DAILY', 'WEEKLY', 'MONTHLY'];

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
  const { t } = useConsoleText();
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
        <td>{t(`promotionPage.recurrenceWords.${mission.recurrence}`)}</td>
        <td className="number">{mission.target ?? '—'}</td>
        <td>
          <RewardText reward={reward} />
        </td>
        {session.canWrite && (
          <td>
            <button type="button" className="secondary" aria-expanded={open} onClick={() => setOpen(!open)}>
              {t('promotionPage.edit')}
              <span className="visually-hidden"> {mission.title}</span>
            </button>
          </td>
        )}
      </tr>
      {open && (
        <tr>
          <td colSpan={5}>
            <ActionForm
              label={t('promotionPage.editMission', { title: mission.title })}
              failure={t('promotionPage.missionNotChanged')}
              submit={t('promotionPage.saveMission')}
              onSubmit={save}
            >
              <TextField
                label={t('promotionPage.missionKey')}
                name="missionKey"
                defaultValue={mission.missionKey}
                disabled
                hint={t('promotionPage.missionKeyFixed')}
              />
              <TextField
                label={t('promotionPage.title')}
                name="title"
                defaultValue={mission.title}
                required
                maxLength={200}
              />
              <TitleFields titles={titlesOf(mission)} />
              <TextField
                label={t('promotionPage.target')}
                name="target"
                type="number"
                min={1}
                step={1}
                defaultValue={mission.target ?? ''}
                hint={t('promotionPage.targetEmpty')}
              />
            </ActionForm>
            <h4>{t('promotionPage.reward')}</h4>
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
