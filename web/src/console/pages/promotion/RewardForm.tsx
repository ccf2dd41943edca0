// The reward of a mission or a mission group: shown in words, and set (a budget, and an amount for a
// FIXED one) or removed.
import { useState } from 'react';
import { Amount, useAmountText } from '../../../shared/values.tsx';
import { Link } from '../../../shared/router.ts';
import { SelectField, TextField, useAction } from '../../../shared/ui.tsx';
import { ActionForm } from '../../components/ActionForm.tsx';
import { field } from '../../forms.ts';
import { useConsoleText } from '../../i18n.ts';
import { useSession } from '../../session.tsx';
import type { Budget, BudgetType, RewardView } from '../../types.ts';

export function RewardText({ reward }: { reward: RewardView | undefined }) {
  const { t } = useConsoleText();
  if (!reward) return <span className="muted">{t('promotionPage.noReward')}</span>;
  if (reward.type === 'LUCKY_DRAW')
    return <span>{t('promotionPage.luckyTicketOf', { budget: reward.budgetName })}</span>;
  return (
    <span>
      <Amount value={reward.amount ?? '0'} decimals={reward.decimals} symbol={reward.assetSymbol} />{' '}
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
  const { t } = useConsoleText();
  const amountText = useAmountText();
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
      label={t('promotionPage.rewardOf', { title: target.label })}
      className="inline-form"
      failure={t('promotionPage.rewardNotChanged')}
      submit={t('promotionPage.setReward')}
      action={action}
      onSubmit={save}
      confirmation={t('promotionPage.rewardSaved', { title: target.label })}
      resetOnSuccess
      moreActions={
        current && (
          <button type="button" className="secondary" disabled={action.busy} onClick={remove}>
            {t('promotionPage.removeReward')}
          </button>
        )
      }
      leading={
        <SelectField
          label={t('promotionPage.rewardType')}
          name="type"
          value={type}
          onChange={(e) => setType(e.currentTarget.value as BudgetType)}
          options={[
            { value: 'FIXED', label: t('promotionPage.fixedAmount') },
            { value: 'LUCKY_DRAW', label: t('promotionPage.luckyTicket') },
          ]}
        />
      }
      unavailable={
        matching.length === 0 ? (
          <p className="notice warn">
            {t(type === 'FIXED' ? 'promotionPage.noFixedBudget' : 'promotionPage.noLuckyBudget')}
            <Link to="/console/budgets">{t('promotionPage.createBudgetLink')}</Link>
            {t('promotionPage.createBudgetAfter')}
          </p>
        ) : undefined
      }
    >
      <SelectField
        label={t('streaks.budget')}
        name="budgetId"
        defaultValue={current?.budgetId}
        options={matching.map((b) => ({
          value: b.id,
          label: t('promotionPage.budgetLeft', {
            name: b.name,
            left: amountText(b.remaining, b.decimals, b.assetSymbol),
          }),
        }))}
      />
      {type === 'FIXED' && (
        <TextField
          label={t('promotionPage.amount')}
          name="amount"
          inputMode="decimal"
          required
          pattern="[0-9]+(\.[0-9]+)?"
          defaultValue={current?.amount ?? ''}
          hint={t('promotionPage.amountHint')}
        />
      )}
    </ActionForm>
  );
}
