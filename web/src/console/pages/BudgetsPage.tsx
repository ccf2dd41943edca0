// Budgets: what each holds (total, reserved, paid, remaining) and a form to create one.
import { SectionTitle } from '../components/PageHeader.tsx';
import { Amount } from '../../shared/values.tsx';
import { Link, navigate } from '../../shared/router.ts';
import { SelectField, TextField, useLoad } from '../../shared/ui.tsx';
import { BUDGET_TYPES, useBudgetList } from '../choices.ts';
import { ActionForm } from '../components/ActionForm.tsx';
import { DataTable } from '../../shared/data-table.tsx';
import { LoadedList } from '../components/LoadedList.tsx';
import { choice, field } from '../forms.ts';
import { useConsoleText } from '../i18n.ts';
import { useSession } from '../session.tsx';
import type { Budget, BudgetType } from '../types.ts';

const AMOUNT_COLUMNS = ['total', 'reserved', 'paid', 'remaining'] as const;

export function BudgetTable({ budgets }: { budgets: Budget[] }) {
  const { t } = useConsoleText();
  return (
    <DataTable
      caption={t('budgetsPage.caption')}
      columns={[
        t('budgetsPage.budget'),
        t('budgetsPage.type'),
        ...AMOUNT_COLUMNS.map((key) => ({ label: t(`budgetsPage.${key}`), numeric: true })),
      ]}
    >
      {budgets.map((b) => (
        <tr key={b.id}>
          <td>
            <Link to={`/console/budgets/${b.id}`}>{b.name}</Link>
          </td>
          <td>{b.type === 'FIXED' ? t('budgetsPage.fixed') : t('budgetsPage.luckyDraw')}</td>
          {[b.total, b.reserved, b.paid, b.remaining].map((value, i) => (
            <td key={AMOUNT_COLUMNS[i]} className="number">
              <Amount value={value} decimals={b.decimals} symbol={b.assetSymbol} />
            </td>
          ))}
        </tr>
      ))}
    </DataTable>
  );
}

export function BudgetsPage() {
  const session = useSession();
  const budgets = useBudgetList();
  const { t } = useConsoleText();
  const assets = useLoad((signal) => session.api.get('/admin/v1/reward-assets', { signal }), []);
  const create = async (form: FormData) => {
    const budget = await session.api.post('/admin/v1/budgets', {
      body: {
        type: choice<BudgetType>(form, 'type'),
        assetId: field(form, 'assetId'),
        name: field(form, 'name'),
        total: field(form, 'total'),
      },
    });
    navigate(`/console/budgets/${budget.id}`);
  };
  const assetOptions = (assets.data?.items ?? []).map((a) => ({
    value: a.id,
    label: `${a.symbol} — ${a.name}${a.decimals === null ? ` ${t('budgetsPage.decimalsNotSet')}` : ''}`,
  }));
  return (
    <>
      <SectionTitle section="budgets" />
      <LoadedList state={budgets} label={t('budgetsPage.list')} empty={t('budgetsPage.none')}>
        {(items) => <BudgetTable budgets={items} />}
      </LoadedList>
      {session.canWrite && (
        <ActionForm
          heading={t('budgetsPage.create')}
          failure={t('budgetsPage.notCreated')}
          submit={t('budgetsPage.submit')}
          onSubmit={create}
          unavailable={
            assetOptions.length === 0 ? (
              <p className="notice warn">
                {t('budgetsPage.needAssetBefore')}
                <Link to="/console/assets">{t('budgetsPage.needAssetLink')}</Link>
                {t('budgetsPage.needAssetAfter')}
              </p>
            ) : undefined
          }
        >
          <TextField label={t('budgetsPage.name')} name="name" required maxLength={200} />
          <SelectField
            label={t('budgetsPage.type')}
            name="type"
            hint={t('budgetsPage.typeHint')}
            options={BUDGET_TYPES.map((o) => ({
              ...o,
              label: o.value === 'FIXED' ? t('budgetsPage.fixedRewards') : t('budgetsPage.luckyDraw'),
            }))}
          />
          <SelectField label={t('budgetsPage.asset')} name="assetId" options={assetOptions} />
          <TextField
            label={t('budgetsPage.total')}
            name="total"
            required
            inputMode="decimal"
            pattern="[0-9]+(\.[0-9]+)?"
            hint={t('budgetsPage.totalHint')}
          />
        </ActionForm>
      )}
    </>
  );
}
