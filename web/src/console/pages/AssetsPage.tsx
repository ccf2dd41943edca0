// Reward assets: fungible tokens with a symbol and decimals. Decimals are set once; an asset
// without them cannot back a reward (1402).
import { SectionTitle } from '../components/PageHeader.tsx';
import { formatDateTime } from '../../shared/format.ts';
import { TextField, useLoad } from '../../shared/ui.tsx';
import { ActionForm } from '../components/ActionForm.tsx';
import { DataTable } from '../../shared/data-table.tsx';
import { LoadedList } from '../components/LoadedList.tsx';
import { field } from '../forms.ts';
import { useSession } from '../session.tsx';
import type { Asset } from '../types.ts';

function SetDecimals({ asset, onSaved }: { asset: Asset; onSaved: () => void }) {
  const session = useSession();
  const save = async (form: FormData) => {
    await session.api.patch('/admin/v1/reward-assets/{id}', {
      path: { id: asset.id },
      body: { decimals: Number(field(form, 'decimals')) },
    });
    onSaved();
  };
  return (
    <ActionForm
      label={`Set decimals of ${asset.symbol}`}
      className="inline-form"
      failure="Decimals not set"
      submit="Set decimals"
      onSubmit={save}
    >
      <TextField
        label={`Decimals of ${asset.symbol}`}
        name="decimals"
        type="number"
        min={0}
        max={36}
        step={1}
        required
        hint="Set once, 0 to 36."
      />
    </ActionForm>
  );
}

export function AssetsPage() {
  const session = useSession();
  const assets = useLoad((signal) => session.api.get('/admin/v1/reward-assets', { signal }), []);
  const create = async (form: FormData) => {
    const decimals = field(form, 'decimals');
    await session.api.post('/admin/v1/reward-assets', {
      body: {
        symbol: field(form, 'symbol'),
        name: field(form, 'name'),
        ...(decimals !== '' && { decimals: Number(decimals) }),
      },
    });
    assets.reload();
  };
  return (
    <>
      <SectionTitle section="assets" />
      <LoadedList state={assets} label="assets" empty="No reward assets yet.">
        {(items) => (
          <DataTable
            caption="Reward assets"
            columns={['Symbol', 'Name', { label: 'Decimals', numeric: true }, 'Created']}
          >
            {items.map((a) => (
              <tr key={a.id}>
                <td>
                  <strong>{a.symbol}</strong>
                  <br />
                  <code className="muted">{a.id}</code>
                </td>
                <td>{a.name}</td>
                <td className="number">
                  {a.decimals ??
                    (session.canWrite ? (
                      <SetDecimals asset={a} onSaved={assets.reload} />
                    ) : (
                      <span className="badge danger">not set</span>
                    ))}
                </td>
                <td>{formatDateTime(a.createdAt)}</td>
              </tr>
            ))}
          </DataTable>
        )}
      </LoadedList>
      {session.canWrite && (
        <ActionForm
          heading="Create a reward asset"
          failure="The asset was not created"
          submit="Create asset"
          resetOnSuccess
          onSubmit={create}
        >
          <TextField label="Symbol" name="symbol" required maxLength={16} hint="Short, e.g. PNT." />
          <TextField label="Name" name="name" required maxLength={200} />
          <TextField
            label="Decimals"
            name="decimals"
            type="number"
            min={0}
            max={36}
            step={1}
            hint="Digits after the point, 0 to 36. May be set later, but must be set before the asset backs a reward."
          />
        </ActionForm>
      )}
    </>
  );
}
