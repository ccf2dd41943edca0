// One partner: its settings (name, status, allow-list, redirect URLs) and its API keys, each key
// shown once when created and revocable at once.
import { useState } from 'react';
import type { FormEvent } from 'react';
import { formatDateTime } from '../../shared/format.ts';
import { Link } from '../../shared/router.ts';
import { ErrorNotice, LoadState, SelectField, StatusBadge, TextArea, TextField, useAction, useLoad } from '../../shared/ui.tsx';
import { field, lines } from '../forms.ts';
import { useSession } from '../session.tsx';
import type { ApiKey, Items, Partner } from '../types.ts';

function Settings({ partner, onSaved }: { partner: Partner; onSaved: (p: Partner) => void }) {
  const session = useSession();
  const save = useAction();
  const [saved, setSaved] = useState(false);
  const disabled = !session.canWrite;
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setSaved(false);
    await save.run(async () => {
      const updated = await session.api<Partner>('PATCH', `/admin/v1/partners/${partner.id}`, {
        name: field(form, 'name'),
        status: field(form, 'status'),
        allowedIps: lines(field(form, 'allowedIps')),
        redirectUrls: lines(field(form, 'redirectUrls')),
      });
      onSaved(updated);
      setSaved(true);
    });
  };
  return (
    <form onSubmit={(e) => void submit(e)} aria-labelledby="settings">
      <h2 id="settings">Settings</h2>
      <ErrorNotice error={save.error} title="The changes were not saved" />
      {saved && (
        <p className="notice ok" role="status">
          Saved.
        </p>
      )}
      <TextField label="Name" name="name" defaultValue={partner.name} required maxLength={200} disabled={disabled} />
      <SelectField
        label="Status"
        name="status"
        defaultValue={partner.status}
        disabled={disabled}
        hint="A disabled partner's API calls are refused (3104)."
        options={[
          { value: 'ACTIVE', label: 'Active' },
          { value: 'DISABLED', label: 'Disabled' },
        ]}
      />
      <TextArea
        label="Allowed server addresses"
        name="allowedIps"
        defaultValue={partner.allowedIps.join('\n')}
        disabled={disabled}
        hint="IPs or CIDRs that may report progress, one per line. Empty: no address may report."
      />
      <TextArea
        label="Redirect URLs"
        name="redirectUrls"
        defaultValue={partner.redirectUrls.join('\n')}
        disabled={disabled}
        hint="Exact URLs the login may return to, one per line."
      />
      {session.canWrite && (
        <div className="actions">
          <button type="submit" disabled={save.busy}>
            Save settings
          </button>
        </div>
      )}
    </form>
  );
}

function ApiKeys({ partnerId }: { partnerId: string }) {
  const session = useSession();
  const keys = useLoad(() => session.api<Items<ApiKey>>('GET', `/admin/v1/partners/${partnerId}/api-keys`), [partnerId]);
  const create = useAction();
  const revoke = useAction();
  const [fresh, setFresh] = useState<(ApiKey & { apiKey: string }) | undefined>();

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const formElement = event.currentTarget;
    const name = field(new FormData(formElement), 'keyName');
    await create.run(async () => {
      const key = await session.api<ApiKey & { apiKey: string }>(
        'POST',
        `/admin/v1/partners/${partnerId}/api-keys`,
        name === '' ? {} : { name },
      );
      setFresh(key);
      formElement.reset();
      keys.reload();
    });
  };

  const revokeKey = async (key: ApiKey) => {
    if (!window.confirm(`Revoke the key ${key.prefix}…? Calls with it fail at once.`)) return;
    await revoke.run(async () => {
      await session.api('DELETE', `/admin/v1/partners/${partnerId}/api-keys/${key.id}`);
      if (fresh?.id === key.id) setFresh(undefined);
      keys.reload();
    });
  };

  return (
    <section aria-labelledby="keys">
      <h2 id="keys">API keys</h2>
      {fresh && (
        <div className="notice warn" role="status">
          <p>
            <strong>Copy this key now: it is shown only once.</strong>
          </p>
          <p>
            <label htmlFor="fresh-key">New API key{fresh.name ? ` “${fresh.name}”` : ''}</label>
            <input id="fresh-key" readOnly value={fresh.apiKey} onFocus={(e) => e.currentTarget.select()} />
          </p>
          <div className="actions">
            <button type="button" className="secondary" onClick={() => void navigator.clipboard?.writeText(fresh.apiKey)}>
              Copy key
            </button>
            <button type="button" className="secondary" onClick={() => setFresh(undefined)}>
              I have stored it
            </button>
          </div>
        </div>
      )}
      <ErrorNotice error={revoke.error} title="The key was not revoked" />
      <LoadState state={keys} label="API keys">
        {(data) =>
          data.items.length === 0 ? (
            <p>No API keys yet.</p>
          ) : (
            <div className="table-wrap" tabIndex={0} role="region" aria-label="Table, scrolls sideways on small screens">
              <table>
                <caption className="visually-hidden">API keys</caption>
                <thead>
                  <tr>
                    <th scope="col">Key</th>
                    <th scope="col">Name</th>
                    <th scope="col">Created</th>
                    <th scope="col">Status</th>
                    {session.canWrite && <th scope="col">Action</th>}
                  </tr>
                </thead>
                <tbody>
                  {data.items.map((k) => (
                    <tr key={k.id}>
                      <td>
                        <code>{k.prefix}…</code>
                      </td>
                      <td>{k.name ?? <span className="muted">—</span>}</td>
                      <td>{formatDateTime(k.createdAt)}</td>
                      <td>{k.revokedAt ? <StatusBadge status="REVOKED" /> : <StatusBadge status="ACTIVE" />}</td>
                      {session.canWrite && (
                        <td>
                          {k.revokedAt === null && (
                            <button type="button" className="danger" disabled={revoke.busy} onClick={() => void revokeKey(k)}>
                              Revoke<span className="visually-hidden"> key {k.prefix}</span>
                            </button>
                          )}
                        </td>
                      )}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </LoadState>
      {session.canWrite && (
        <form onSubmit={(e) => void submit(e)} aria-label="Create an API key">
          <ErrorNotice error={create.error} title="No key was created" />
          <TextField label="Key name (optional)" name="keyName" maxLength={200} hint="To tell keys apart, e.g. production." />
          <div className="actions">
            <button type="submit" disabled={create.busy}>
              Create API key
            </button>
          </div>
        </form>
      )}
    </section>
  );
}

export function PartnerPage({ id }: { id: string }) {
  const session = useSession();
  const partner = useLoad(() => session.api<Partner>('GET', `/admin/v1/partners/${id}`), [id]);
  const [current, setCurrent] = useState<Partner | undefined>();
  const shown = current?.id === id ? current : partner.data;
  return (
    <>
      <p>
        <Link to="/console/partners">← Partners</Link>
      </p>
      <LoadState state={partner} label="the partner">
        {() =>
          shown && (
            <>
              <h1>
                {shown.name} <StatusBadge status={shown.status} />
              </h1>
              <dl className="facts">
                <dt>Partner id</dt>
                <dd>
                  <code>{shown.id}</code>
                </dd>
                <dt>Created</dt>
                <dd>{formatDateTime(shown.createdAt)}</dd>
              </dl>
              <p>
                <Link to={`/console/promotions?partnerId=${shown.id}`}>Promotions of this partner</Link>
              </p>
              <Settings key={shown.updatedAt} partner={shown} onSaved={setCurrent} />
              <ApiKeys partnerId={shown.id} />
            </>
          )
        }
      </LoadState>
    </>
  );
}
