// Budgets: what each holds (total, reserved, paid, remaining) and a form to create one.
import { SectionTitle } from '../components/PageHeader.tsx';
import { formatUnits } from '../../shared/format.ts';
import { Link, navigate } from '../../shared/router.ts';
import { SelectField, TextField, useLoad } from '../../shared/ui.tsx';
import { BUDGET_TYPES, useBudgetList } from '../choices.ts';
import { ActionForm } from '../components/ActionForm.tsx';
import { DataTable } from '../../shared/data-table.tsx';
import { LoadedList } from '../components/LoadedList.tsx';
import { choice, field } from '../forms.ts';
import { useSession } from '../session.tsx';
import type { Budget, BudgetType } from '../types.ts';

const AMOUNT_COLUMNS = ['Total', 'Reserved', 'Paid', 'Remaining'] as const;

export function BudgetTable({ budgets }: { budgets: Budget[] }) {
  const amount = (b: Budget, value: string) => `${formatUnits(value, b.decimals)} ${b.assetSymbol}`;
  return (
    <DataTable
      caption="Budgets"
      columns={['Budget', 'Type', ...AMOUNT_COLUMNS.map((label) => ({ label, numeric: true }))]}
    >
      {budgets.map((b) => (
        <tr key={b.id}>
          <td>
            <Link to={`/console/budgets/${b.id}`}>{b.name}</Link>
          </td>
          <td>{b.type === 'FIXED' ? 'Fixed' : 'Lucky draw'}</td>
          {[b.total, b.reserved, b.paid, b.remaining].map((value, i) => (
            <td key={AMOUNT_COLUMNS[i]} className="number">
              {amount(b, value)}
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
    label: `${a.symbol} — ${a.name}${a.decimals === null ? ' (decimals not set)' : ''}`,
  }));
  return (
    <>
      <SectionTitle section="budgets" />
      <LoadedList state={budgets} label="budgets" empty="No budgets yet.">
        {(items) => <BudgetTable budgets={items} />}
      </LoadedList>
      {session.canWrite && (
        <ActionForm
          heading="Create a budget"
          failure="The budget was not created"
          submit="Create budget"
          onSubmit={create}
          unavailable={
            assetOptions.length === 0 ? (
              <p className="notice warn">
                Create a <Link to="/console/assets">reward asset</Link> first.
              </p>
            ) : undefined
          }
        >
          <TextField label="Name" name="name" required maxLength={200} />
          <SelectField
            label="Type"
            name="type"
            hint="Fixed budgets pay mission rewards; lucky-draw budgets pay draw prizes."
            options={BUDGET_TYPES}
          />
          <SelectField label="Asset" name="assetId" options={assetOptions} />
          <TextField
            label="Total"
            name="total"
            required
            inputMode="decimal"
            pattern="[0-9]+(\.[0-9]+)?"
            hint="In whole units of the asset, e.g. 1000 or 250.5."
          />
        </ActionForm>
      )}
    </>
  );
}
