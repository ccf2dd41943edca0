// Reward assets: fungible tokens with a symbol and decimals. Decimals are set once; an asset
// without them cannot back a reward (1402).
import type { FormEvent } from 'react';
import { formatDateTime } from '../../shared/format.ts';
import { ErrorNotice, LoadState, TextField, useAction, useLoad } from '../../shared/ui.tsx';
import { field } from '../forms.ts';
import { useSession } from '../session.tsx';
import type { Asset, Items } from '../types.ts';

function SetDecimals({ asset, onSaved }: { asset: Asset; onSaved: () => void }) {
  const session = useSession();
  const save = useAction();
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const decimals = Number(field(new FormData(event.currentTarget), 'decimals'));
    await save.run(async () => {
      await session.api('PATCH', `/admin/v1/reward-assets/${asset.id}`, { decimals });
      onSaved();
    });
  };
  return (
    <form onSubmit={(e) => void submit(e)} aria-label={`Set decimals of ${asset.symbol}`} className="inline-form">
      <ErrorNotice error={save.error} title="Decimals not set" />
      <TextField label={`Decimals of ${asset.symbol}`} name="decimals" type="number" min={0} max={36} step={1} required hint="Set once, 0 to 36." />
      <button type="submit" disabled={save.busy}>
        Set decimals
      </button>
    </form>
  );
}

export function AssetsPage() {
  const session = useSession();
  const assets = useLoad(() => session.api<Items<Asset>>('GET', '/admin/v1/reward-assets'), []);
  const create = useAction();
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    const decimals = field(form, 'decimals');
    await create.run(async () => {
      await session.api('POST', '/admin/v1/reward-assets', {
        symbol: field(form, 'symbol'),
        name: field(form, 'name'),
        ...(decimals !== '' && { decimals: Number(decimals) }),
      });
      formElement.reset();
      assets.reload();
    });
  };
  return (
    <>
      <h1>Reward assets</h1>
      <LoadState state={assets} label="assets">
        {(data) =>
          data.items.length === 0 ? (
            <p>No reward assets yet.</p>
          ) : (
            <div className="table-wrap" tabIndex={0} role="region" aria-label="Table, scrolls sideways on small screens">
              <table>
                <caption className="visually-hidden">Reward assets</caption>
                <thead>
                  <tr>
                    <th scope="col">Symbol</th>
                    <th scope="col">Name</th>
                    <th scope="col" className="number">
                      Decimals
                    </th>
                    <th scope="col">Created</th>
                  </tr>
                </thead>
                <tbody>
                  {data.items.map((a) => (
                    <tr key={a.id}>
                      <td>
                        <strong>{a.symbol}</strong>
                        <br />
                        <code className="muted">{a.id}</code>
                      </td>
                      <td>{a.name}</td>
                      <td className="number">
                        {a.decimals ?? (session.canWrite ? <SetDecimals asset={a} onSaved={assets.reload} /> : <span className="badge danger">not set</span>)}
                      </td>
                      <td>{formatDateTime(a.createdAt)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </LoadState>
      {session.canWrite && (
        <form onSubmit={(e) => void submit(e)} aria-labelledby="new-asset">
          <h2 id="new-asset">Create a reward asset</h2>
          <ErrorNotice error={create.error} title="The asset was not created" />
          <TextField label="Symbol" name="symbol" required maxLength={16} hint="Short, e.g. PNT." />
          <TextField label="Name" name="name" required maxLength={200} />
          <TextField label="Decimals" name="decimals" type="number" min={0} max={36} step={1} hint="Digits after the point, 0 to 36. May be set later, but must be set before the asset backs a reward." />
          <div className="actions">
            <button type="submit" disabled={create.busy}>
              Create asset
            </button>
          </div>
        </form>
      )}
    </>
  );
}
