// Budgets: what each holds (total, reserved, paid, remaining) and a form to create one.
import type { FormEvent } from 'react';
import { formatUnits } from '../../shared/format.ts';
import { Link, navigate } from '../../shared/router.ts';
import { ErrorNotice, LoadState, SelectField, TextField, useAction, useLoad } from '../../shared/ui.tsx';
import { field } from '../forms.ts';
import { useSession } from '../session.tsx';
import type { Asset, Budget, Items } from '../types.ts';

export function BudgetTable({ budgets }: { budgets: Budget[] }) {
  const amount = (b: Budget, value: string) => `${formatUnits(value, b.decimals)} ${b.assetSymbol}`;
  return (
    <div className="table-wrap" tabIndex={0} role="region" aria-label="Table, scrolls sideways on small screens">
      <table>
        <caption className="visually-hidden">Budgets</caption>
        <thead>
          <tr>
            <th scope="col">Budget</th>
            <th scope="col">Type</th>
            <th scope="col" className="number">
              Total
            </th>
            <th scope="col" className="number">
              Reserved
            </th>
            <th scope="col" className="number">
              Paid
            </th>
            <th scope="col" className="number">
              Remaining
            </th>
          </tr>
        </thead>
        <tbody>
          {budgets.map((b) => (
            <tr key={b.id}>
              <td>
                <Link to={`/console/budgets/${b.id}`}>{b.name}</Link>
              </td>
              <td>{b.type === 'FIXED' ? 'Fixed' : 'Lucky draw'}</td>
              <td className="number">{amount(b, b.total)}</td>
              <td className="number">{amount(b, b.reserved)}</td>
              <td className="number">{amount(b, b.paid)}</td>
              <td className="number">{amount(b, b.remaining)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function BudgetsPage() {
  const session = useSession();
  const budgets = useLoad(() => session.api<Items<Budget>>('GET', '/admin/v1/budgets?limit=500'), []);
  const assets = useLoad(() => session.api<Items<Asset>>('GET', '/admin/v1/reward-assets'), []);
  const create = useAction();
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    await create.run(async () => {
      const budget = await session.api<Budget>('POST', '/admin/v1/budgets', {
        type: field(form, 'type'),
        assetId: field(form, 'assetId'),
        name: field(form, 'name'),
        total: field(form, 'total'),
      });
      navigate(`/console/budgets/${budget.id}`);
    });
  };
  const assetOptions = (assets.data?.items ?? []).map((a) => ({ value: a.id, label: `${a.symbol} — ${a.name}${a.decimals === null ? ' (decimals not set)' : ''}` }));
  return (
    <>
      <h1>Budgets</h1>
      <LoadState state={budgets} label="budgets">
        {(data) => (data.items.length === 0 ? <p>No budgets yet.</p> : <BudgetTable budgets={data.items} />)}
      </LoadState>
      {session.canWrite && (
        <form onSubmit={(e) => void submit(e)} aria-labelledby="new-budget">
          <h2 id="new-budget">Create a budget</h2>
          <ErrorNotice error={create.error} title="The budget was not created" />
          {assetOptions.length === 0 ? (
            <p className="notice warn">
              Create a <Link to="/console/assets">reward asset</Link> first.
            </p>
          ) : (
            <>
              <TextField label="Name" name="name" required maxLength={200} />
              <SelectField
                label="Type"
                name="type"
                hint="Fixed budgets pay mission rewards; lucky-draw budgets pay draw prizes."
                options={[
                  { value: 'FIXED', label: 'Fixed rewards' },
                  { value: 'LUCKY_DRAW', label: 'Lucky draw' },
                ]}
              />
              <SelectField label="Asset" name="assetId" options={assetOptions} />
              <TextField label="Total" name="total" required inputMode="decimal" pattern="[0-9]+(\.[0-9]+)?" hint="In whole units of the asset, e.g. 1000 or 250.5." />
              <div className="actions">
                <button type="submit" disabled={create.busy}>
                  Create budget
                </button>
              </div>
            </>
          )}
        </form>
      )}
    </>
  );
}
