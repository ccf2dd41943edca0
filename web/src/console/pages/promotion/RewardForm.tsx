// The reward of a mission or a mission group: shown in words, and set (a budget, and an amount for a
// FIXED one) or removed.
import { useState } from 'react';
import { formatUnits } from '../../../shared/format.ts';
import { Link } from '../../../shared/router.ts';
import { SelectField, TextField, useAction } from '../../../shared/ui.tsx';
import { budgetOptions, REWARD_TYPES } from '../../choices.ts';
import { ActionForm } from '../../components/ActionForm.tsx';
import { field } from '../../forms.ts';
import { useSession } from '../../session.tsx';
import type { Budget, BudgetType, RewardView } from '../../types.ts';

export function RewardText({ reward }: { reward: RewardView | undefined }) {
  if (!reward) return <span className="muted">none</span>;
  if (reward.type === 'LUCKY_DRAW') return <span>lucky-draw ticket ({reward.budgetName})</span>;
  return (
    <span>
      {formatUnits(reward.amount ?? '0', reward.decimals)} {reward.assetSymbol}{' '}
      <span className="muted">({reward.budgetName})</span>
    </span>
  );
}

/** What pays the reward: a mission or a whole group (COMPOSITE promotions). */
export interface RewardTarget {
  kind: 'missions' | 'mission-groups';
  id: string;
  label: string;
}

/** Set (or remove) the reward of a mission or a group. */
export function RewardForm({
  target,
  budgets,
  current,
  onChanged,
}: {
  target: RewardTarget;
  budgets: Budget[];
  current: RewardView | undefined;
  onChanged: () => void;
}) {
  const session = useSession();
  const action = useAction();
  const [type, setType] = useState<BudgetType>(current?.type ?? 'FIXED');
  const matching = budgets.filter((b) => b.type === type);
  const path = { id: target.id };
  const put = (body: { type: BudgetType; budgetId: string; amount?: string }) =>
    target.kind === 'missions'
      ? session.api.put('/admin/v1/missions/{id}/reward', { path, body })
      : session.api.put('/admin/v1/mission-groups/{id}/reward', { path, body });
  const save = async (form: FormData) => {
    await put({
      type,
      budgetId: field(form, 'budgetId'),
      ...(type === 'FIXED' && { amount: field(form, 'amount') }),
    });
    onChanged();
  };
  const remove = () =>
    void action.run(async () => {
      await (target.kind === 'missions'
        ? session.api.delete('/admin/v1/missions/{id}/reward', { path })
        : session.api.delete('/admin/v1/mission-groups/{id}/reward', { path }));
      onChanged();
    });
  return (
    <ActionForm
      label={`Reward of ${target.label}`}
      className="inline-form"
      failure="The reward was not changed"
      submit="Set reward"
      action={action}
      onSubmit={save}
      moreActions={
        current && (
          <button type="button" className="secondary" disabled={action.busy} onClick={remove}>
            Remove reward
          </button>
        )
      }
      leading={
        <SelectField
          label="Reward type"
          name="type"
          value={type}
          onChange={(e) => setType(e.currentTarget.value as BudgetType)}
          options={REWARD_TYPES}
        />
      }
      unavailable={
        matching.length === 0 ? (
          <p className="notice warn">
            No {type === 'FIXED' ? 'fixed' : 'lucky-draw'} budget yet.{' '}
            <Link to="/console/budgets">Create one</Link>.
          </p>
        ) : undefined
      }
    >
      <SelectField
        label="Budget"
        name="budgetId"
        defaultValue={current?.budgetId}
        options={budgetOptions(matching)}
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
    </ActionForm>
  );
}
