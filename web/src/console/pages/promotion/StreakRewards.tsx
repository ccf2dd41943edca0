// A DAILY_CHECK promotion's streak rewards: an amount from a FIXED budget when a user's streak of
// daily check-ins reaches a number of days. The API replaces the whole list, so adding or removing
// one sends the others with it.
import { DataTable } from '../../../shared/data-table.tsx';
import { Amount, useAmountText } from '../../../shared/values.tsx';
import { ErrorNotice, SelectField, TextField, useAction, useLoad } from '../../../shared/ui.tsx';
import { budgetOptions } from '../../choices.ts';
import { ActionForm } from '../../components/ActionForm.tsx';
import { LoadedList } from '../../components/LoadedList.tsx';
import { field } from '../../forms.ts';
import { useConsoleText } from '../../i18n.ts';
import { useSession } from '../../session.tsx';
import type { Budget } from '../../types.ts';

export function StreakRewards({ promotionId, budgets }: { promotionId: string; budgets: Budget[] }) {
  const session = useSession();
  const { t } = useConsoleText();
  const amountText = useAmountText();
  const path = { id: promotionId };
  const rewards = useLoad(
    (signal) => session.api.get('/admin/v1/promotions/{id}/streak-rewards', { path, signal }),
    [promotionId],
  );
  const remove = useAction();
  const fixed = budgets.filter((b) => b.type === 'FIXED');
  const budgetOf = (id: string) => budgets.find((b) => b.id === id);
  const current = rewards.data?.items ?? [];
  const save = async (items: typeof current) => {
    await session.api.put('/admin/v1/promotions/{id}/streak-rewards', { path, body: { items } });
    rewards.reload();
  };
  const add = (form: FormData) =>
    save([
      ...current.filter((r) => r.days !== Number(field(form, 'days'))),
      { days: Number(field(form, 'days')), budgetId: field(form, 'budgetId'), amount: field(form, 'amount') },
    ]);
  return (
    <section aria-labelledby="streak-rewards">
      <h2 id="streak-rewards">{t('streaks.title')}</h2>
      <p className="muted">{t('streaks.intro')}</p>
      <ErrorNotice error={remove.error} title={t('streaks.notSaved')} />
      <LoadedList state={rewards} label={t('streaks.title')} empty={t('streaks.none')}>
        {(items) => (
          <DataTable
            caption={t('streaks.title')}
            columns={[
              { label: t('streaks.days'), numeric: true },
              t('streaks.budget'),
              { label: t('streaks.amount'), numeric: true },
              session.canWrite && t('common.actions'),
            ]}
          >
            {[...items]
              .sort((a, b) => a.days - b.days)
              .map((r) => {
                const budget = budgetOf(r.budgetId);
                return (
                  <tr key={r.days}>
                    <td className="number">{t('streaks.dayCount', { count: r.days })}</td>
                    <td>{budget?.name ?? r.budgetId}</td>
                    <td className="number">
                      <Amount
                        value={r.amount}
                        decimals={budget?.decimals ?? 0}
                        symbol={budget?.assetSymbol}
                      />
                    </td>
                    {session.canWrite && (
                      <td>
                        <button
                          type="button"
                          className="secondary"
                          disabled={remove.busy}
                          onClick={() => void remove.run(() => save(items.filter((o) => o.days !== r.days)))}
                        >
                          {t('streaks.remove', { count: r.days })}
                        </button>
                      </td>
                    )}
                  </tr>
                );
              })}
          </DataTable>
        )}
      </LoadedList>
      {session.canWrite && (
        <ActionForm
          heading={t('streaks.add')}
          headingLevel={3}
          failure={t('streaks.notSaved')}
          submit={t('streaks.add')}
          resetOnSuccess
          onSubmit={add}
          unavailable={
            fixed.length === 0 ? <p className="notice warn">{t('streaks.noBudget')}</p> : undefined
          }
        >
          <TextField
            label={t('streaks.days')}
            name="days"
            type="number"
            min={1}
            max={3660}
            step={1}
            required
            hint={t('streaks.daysHint')}
          />
          <SelectField
            label={t('streaks.budget')}
            name="budgetId"
            options={budgetOptions(fixed, (b) =>
              t('promotionPage.budgetLeft', {
                name: b.name,
                left: amountText(b.remaining, b.decimals, b.assetSymbol),
              }),
            )}
          />
          <TextField
            label={t('streaks.amount')}
            name="amount"
            required
            inputMode="decimal"
            pattern="[0-9]+(\.[0-9]+)?"
            hint={t('streaks.amountHint')}
          />
        </ActionForm>
      )}
    </section>
  );
}
