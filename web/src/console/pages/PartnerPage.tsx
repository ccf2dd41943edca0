// One partner: its settings (name, status, allow-list, redirect URLs) and its API keys, each key
// shown once when created and revocable at once.
import { useState } from 'react';
import { formatDateTime } from '../../shared/format.ts';
import { Link } from '../../shared/router.ts';
import {
  ErrorNotice,
  LoadState,
  SelectField,
  StatusBadge,
  TextArea,
  TextField,
  useAction,
  useLoad,
} from '../../shared/ui.tsx';
import { PARTNER_STATUSES } from '../choices.ts';
import { ActionForm } from '../components/ActionForm.tsx';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { DataTable } from '../../shared/data-table.tsx';
import { LoadedList } from '../components/LoadedList.tsx';
import { BackLink, Facts, PageTitle } from '../components/PageHeader.tsx';
import { choice, field, lines } from '../forms.ts';
import { useSession } from '../session.tsx';
import type { ApiKey, NewApiKey, Partner } from '../types.ts';

function Settings({ partner, onSaved }: { partner: Partner; onSaved: (p: Partner) => void }) {
  const session = useSession();
  const disabled = !session.canWrite;
  const save = async (form: FormData) => {
    const updated = await session.api.patch('/admin/v1/partners/{partnerId}', {
      path: { partnerId: partner.id },
      body: {
        name: field(form, 'name'),
        status: choice<Partner['status']>(form, 'status'),
        allowedIps: lines(field(form, 'allowedIps')),
        redirectUrls: lines(field(form, 'redirectUrls')),
      },
    });
    onSaved(updated);
  };
  return (
    <ActionForm
      heading="Settings"
      failure="The changes were not saved"
      confirmation="Saved."
      submit="Save settings"
      onSubmit={save}
      readOnly={disabled}
    >
      <TextField
        label="Name"
        name="name"
        defaultValue={partner.name}
        required
        maxLength={200}
        disabled={disabled}
      />
      <SelectField
        label="Status"
        name="status"
        defaultValue={partner.status}
        disabled={disabled}
        hint="A disabled partner's API calls are refused (3104)."
        options={PARTNER_STATUSES}
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
    </ActionForm>
  );
}

/** The key just created, shown until the operator says it is stored. */
function FreshKey({ apiKey, onDismiss }: { apiKey: NewApiKey; onDismiss: () => void }) {
  return (
    <div className="notice warn" role="status">
      <p>
        <strong>Copy this key now: it is shown only once.</strong>
      </p>
      <p>
        <label htmlFor="fresh-key">New API key{apiKey.name ? ` “${apiKey.name}”` : ''}</label>
        <input id="fresh-key" readOnly value={apiKey.apiKey} onFocus={(e) => e.currentTarget.select()} />
      </p>
      <div className="actions">
        <button
          type="button"
          className="secondary"
          onClick={() => void navigator.clipboard?.writeText(apiKey.apiKey)}
        >
          Copy key
        </button>
        <button type="button" className="secondary" onClick={onDismiss}>
          I have stored it
        </button>
      </div>
    </div>
  );
}

function ApiKeys({ partnerId }: { partnerId: string }) {
  const session = useSession();
  const keys = useLoad(
    (signal) => session.api.get('/admin/v1/partners/{partnerId}/api-keys', { path: { partnerId }, signal }),
    [partnerId],
  );
  const revoke = useAction();
  const [fresh, setFresh] = useState<NewApiKey | undefined>();

  const create = async (form: FormData) => {
    const name = field(form, 'keyName');
    const key = await session.api.post('/admin/v1/partners/{partnerId}/api-keys', {
      path: { partnerId },
      body: name === '' ? {} : { name },
    });
    setFresh(key);
    keys.reload();
  };

  const revokeKey = (key: ApiKey) =>
    void revoke.run(async () => {
      await session.api.delete('/admin/v1/partners/{partnerId}/api-keys/{keyId}', {
        path: { partnerId, keyId: key.id },
      });
      if (fresh?.id === key.id) setFresh(undefined);
      keys.reload();
    });

  return (
    <section aria-labelledby="keys">
      <h2 id="keys">API keys</h2>
      {fresh && <FreshKey apiKey={fresh} onDismiss={() => setFresh(undefined)} />}
      <ErrorNotice error={revoke.error} title="The key was not revoked" />
      <LoadedList state={keys} label="API keys" empty="No API keys yet.">
        {(items) => (
          <DataTable
            caption="API keys"
            columns={['Key', 'Name', 'Created', 'Status', session.canWrite && 'Action']}
          >
            {items.map((k) => (
              <tr key={k.id}>
                <td>
                  <code>{k.prefix}…</code>
                </td>
                <td>{k.name ?? <span className="muted">—</span>}</td>
                <td>{formatDateTime(k.createdAt)}</td>
                <td>
                  <StatusBadge status={k.revokedAt ? 'REVOKED' : 'ACTIVE'} />
                </td>
                {session.canWrite && (
                  <td>
                    {k.revokedAt === null && (
                      <ConfirmButton
                        className="danger"
                        disabled={revoke.busy}
                        question={`Revoke the key ${k.prefix}…? Calls with it fail at once.`}
                        onConfirmed={() => revokeKey(k)}
                      >
                        Revoke<span className="visually-hidden"> key {k.prefix}</span>
                      </ConfirmButton>
                    )}
                  </td>
                )}
              </tr>
            ))}
          </DataTable>
        )}
      </LoadedList>
      {session.canWrite && (
        <ActionForm
          label="Create an API key"
          failure="No key was created"
          submit="Create API key"
          resetOnSuccess
          onSubmit={create}
        >
          <TextField
            label="Key name (optional)"
            name="keyName"
            maxLength={200}
            hint="To tell keys apart, e.g. production."
          />
        </ActionForm>
      )}
    </section>
  );
}

export function PartnerPage({ id }: { id: string }) {
  const session = useSession();
  const partner = useLoad(
    (signal) => session.api.get('/admin/v1/partners/{partnerId}', { path: { partnerId: id }, signal }),
    [id],
  );
  const [current, setCurrent] = useState<Partner | undefined>();
  const shown = current?.id === id ? current : partner.data;
  return (
    <>
      <BackLink to="/console/partners">Partners</BackLink>
      <LoadState state={partner} label="the partner">
        {() =>
          shown && (
            <>
              <PageTitle title={shown.name} status={shown.status} />
              <Facts
                facts={[
                  ['Partner id', <code>{shown.id}</code>],
                  ['Created', formatDateTime(shown.createdAt)],
                ]}
              />
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
