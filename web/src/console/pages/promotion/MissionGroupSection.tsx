// A mission group of a promotion: its reward (COMPOSITE promotions pay one for the whole group), its
// missions in a table, and a form to add one.
import { useState } from 'react';
import { SelectField, TextField, useLoad } from '../../../shared/ui.tsx';
import { ActionForm } from '../../components/ActionForm.tsx';
import { DataTable } from '../../../shared/data-table.tsx';
import { LoadedList } from '../../components/LoadedList.tsx';
import { choice, field } from '../../forms.ts';
import { useConsoleText } from '../../i18n.ts';
import { useSession } from '../../session.tsx';
import type { Budget, MissionGroup, Promotion, Recurrence, RewardView } from '../../types.ts';
import { MissionRow, RECURRENCES } from './MissionRow.tsx';
import { RewardForm, RewardText } from './RewardForm.tsx';
import { TitleFields, titlesBody } from '../../components/TitleFields.tsx';

export function MissionGroupSection({
  group,
  promotion,
  budgets,
  rewards,
  onRewardsChanged,
}: {
  group: MissionGroup;
  promotion: Promotion;
  budgets: Budget[];
  rewards: RewardView[];
  onRewardsChanged: () => void;
}) {
  const session = useSession();
  const { t } = useConsoleText();
  const missions = useLoad(
    (signal) =>
      session.api.get('/admin/v1/mission-groups/{groupId}/missions', { path: { groupId: group.id }, signal }),
    [group.id],
  );
  const [groupRewardOpen, setGroupRewardOpen] = useState(false);
  const changed = () => {
    missions.reload();
    onRewardsChanged();
  };
  const addMission = async (form: FormData) => {
    const target = field(form, 'target');
    await session.api.post('/admin/v1/mission-groups/{groupId}/missions', {
      path: { groupId: group.id },
      body: {
        missionKey: field(form, 'missionKey'),
        title: field(form, 'title'),
        recurrence: choice<Recurrence>(form, 'recurrence'),
        ...(target !== '' && { target: Number(target) }),
        ...titlesBody(form),
      },
    });
    missions.reload();
  };
  const groupReward = rewards.find((r) => r.missionGroupId === group.id);
  const headingId = `group-${group.id}`;
  return (
    <section aria-labelledby={headingId} className="card group">
      <h3 id={headingId}>{group.title}</h3>
      {promotion.type === 'COMPOSITE' && (
        <p>
          {t('promotionPage.groupReward')} <RewardText reward={groupReward} />{' '}
          {session.canWrite && (
            <button
              type="button"
              className="link"
              aria-expanded={groupRewardOpen}
              onClick={() => setGroupRewardOpen(!groupRewardOpen)}
            >
              {groupRewardOpen ? t('promotionPage.close') : t('promotionPage.change')}
              <span className="visually-hidden">
                {' '}
                {t('promotionPage.groupRewardOf', { title: group.title })}
              </span>
            </button>
          )}
        </p>
      )}
      {groupRewardOpen && (
        <RewardForm
          target={{ kind: 'mission-groups', id: group.id, label: group.title }}
          budgets={budgets}
          current={groupReward}
          onChanged={onRewardsChanged}
        />
      )}
      <LoadedList
        state={missions}
        label={t('promotionPage.missionsLoading')}
        empty={t('promotionPage.noMissions')}
      >
        {(items) => (
          <DataTable
            caption={t('promotionPage.missionsOf', { title: group.title })}
            columns={[
              t('promotionPage.mission'),
              t('promotionPage.recurrence'),
              { label: t('promotionPage.target'), numeric: true },
              t('promotionPage.reward'),
              session.canWrite && t('promotionPage.action'),
            ]}
          >
            {items.map((m) => (
              <MissionRow
                key={`${m.id}-${m.title}-${m.target}`}
                mission={m}
                reward={rewards.find((r) => r.missionId === m.id)}
                budgets={budgets}
                onChanged={changed}
              />
            ))}
          </DataTable>
        )}
      </LoadedList>
      {session.canWrite && (
        <details>
          <summary>{t('promotionPage.addMissionTo', { title: group.title })}</summary>
          <ActionForm
            label={t('promotionPage.newMissionIn', { title: group.title })}
            failure={t('promotionPage.missionNotCreated')}
            submit={t('promotionPage.addMission')}
            resetOnSuccess
            onSubmit={addMission}
          >
            <TextField
              label={t('promotionPage.missionKey')}
              name="missionKey"
              required
              maxLength={128}
              pattern="[A-Za-z0-9][A-Za-z0-9._:\-]*"
              hint={t('promotionPage.missionKeyHint')}
            />
            <TextField label={t('promotionPage.title')} name="title" required maxLength={200} />
            <TitleFields />
            <SelectField
              label={t('promotionPage.recurrence')}
              name="recurrence"
              defaultValue={promotion.type === 'DAILY_CHECK' ? 'DAILY' : 'ONE_TIME'}
              options={RECURRENCES.map((value) => ({
                value,
                label: t(`promotionPage.recurrences.${value}`),
              }))}
            />
            <TextField
              label={t('promotionPage.targetOptional')}
              name="target"
              type="number"
              min={1}
              step={1}
              hint={t('promotionPage.targetHint')}
            />
          </ActionForm>
        </details>
      )}
    </section>
  );
}
