// A mission group of a promotion: its reward (COMPOSITE promotions pay one for the whole group), its
// missions in a table, and a form to add one.
import { useState } from 'react';
import { SelectField, TextField, useLoad } from '../../../shared/ui.tsx';
import { RECURRENCES } from '../../choices.ts';
import { ActionForm } from '../../components/ActionForm.tsx';
import { DataTable } from '../../../shared/data-table.tsx';
import { LoadedList } from '../../components/LoadedList.tsx';
import { choice, field } from '../../forms.ts';
import { useSession } from '../../session.tsx';
import type { Budget, MissionGroup, Promotion, Recurrence, RewardView } from '../../types.ts';
import { MissionRow } from './MissionRow.tsx';
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
          Group reward (paid when every mission of the group is completed in a period):{' '}
          <RewardText reward={groupReward} />{' '}
          {session.canWrite && (
            <button
              type="button"
              className="link"
              aria-expanded={groupRewardOpen}
              onClick={() => setGroupRewardOpen(!groupRewardOpen)}
            >
              {groupRewardOpen ? 'Close' : 'Change'}
              <span className="visually-hidden"> group reward of {group.title}</span>
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
      <LoadedList state={missions} label="missions" empty="No missions in this group yet.">
        {(items) => (
          <DataTable
            caption={`Missions of ${group.title}`}
            columns={[
              'Mission',
              'Recurrence',
              { label: 'Target', numeric: true },
              'Reward',
              session.canWrite && 'Action',
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
          <summary>Add a mission to {group.title}</summary>
          <ActionForm
            label={`New mission in ${group.title}`}
            failure="The mission was not created"
            submit="Add mission"
            resetOnSuccess
            onSubmit={addMission}
          >
            <TextField
              label="Mission key"
              name="missionKey"
              required
              maxLength={128}
              pattern="[A-Za-z0-9][A-Za-z0-9._:\-]*"
              hint="What the partner reports, unique per partner: letters, digits and . _ : -"
            />
            <TextField label="Title" name="title" required maxLength={200} />
            <TitleFields />
            <SelectField
              label="Recurrence"
              name="recurrence"
              defaultValue={promotion.type === 'DAILY_CHECK' ? 'DAILY' : 'ONE_TIME'}
              options={RECURRENCES}
            />
            <TextField
              label="Target (optional)"
              name="target"
              type="number"
              min={1}
              step={1}
              hint="When set, a completion must report metadata.current at or above it."
            />
          </ActionForm>
        </details>
      )}
    </section>
  );
}
