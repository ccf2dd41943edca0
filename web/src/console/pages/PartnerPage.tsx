// One partner: its settings (name, status, allow-list, redirect URLs) and its API keys, each key
// shown once when created and revocable at once.
import { useState } from 'react';
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
import { ActionForm } from '../components/ActionForm.tsx';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { DataTable } from '../../shared/data-table.tsx';
import { LoadedList } from '../components/LoadedList.tsx';
import { BackLink, Facts, PageTitle } from '../components/PageHeader.tsx';
import { choice, field, lines } from '../forms.ts';
import { useConsoleText } from '../i18n.ts';
import { useSession } from '../session.tsx';
import type { ApiKey, NewApiKey, Partner } from '../types.ts';

function Settings({ partner, onSaved }: { partner: Partner; onSaved: (p: Partner) => void }) {
  const session = useSession();
  const { t } = useConsoleText();
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
      heading={t('partnerPage.settings')}
      failure={t('partnerPage.notSaved')}
      confirmation={t('partnerPage.saved')}
      submit={t('partnerPage.save')}
      onSubmit={save}
      readOnly={disabled}
    >
      <TextField
        label={t('partnerPage.name')}
        name="name"
        defaultValue={partner.name}
        required
        maxLength={200}
        disabled={disabled}
      />
      <SelectField
        label={t('partnerPage.status')}
        name="status"
        defaultValue={partner.status}
        disabled={disabled}
        hint={t('partnerPage.statusHint')}
        options={[
          { value: 'ACTIVE', label: t('partnerPage.active') },
          { value: 'DISABLED', label: t('partnerPage.disabled') },
        ]}
      />
      <TextArea
        label={t('partnerPage.allowedIps')}
        name="allowedIps"
        defaultValue={partner.allowedIps.join('\n')}
        disabled={disabled}
        hint={t('partnerPage.allowedIpsHint')}
      />
      <TextArea
        label={t('partnerPage.redirectUrls')}
        name="redirectUrls"
        defaultValue={partner.redirectUrls.join('\n')}
        disabled={disabled}
        hint={t('partnerPage.redirectUrlsHint')}
      />
    </ActionForm>
  );
}

/** The key just created, shown until the operator says it is stored. */
function FreshKey({ apiKey, onDismiss }: { apiKey: NewApiKey; onDismiss: () => void }) {
  const { t } = useConsoleText();
  return (
    <div className="notice warn" role="status">
      <p>
        <strong>{t('partnerPage.copyNow')}</strong>
      </p>
      <p>
        <label htmlFor="fresh-key">
          {apiKey.name ? t('partnerPage.newKeyNamed', { name: apiKey.name }) : t('partnerPage.newKey')}
        </label>
        <input id="fresh-key" readOnly value={apiKey.apiKey} onFocus={(e) => e.currentTarget.select()} />
      </p>
      <div className="actions">
        <button
          type="button"
          className="secondary"
          onClick={() => void navigator.clipboard?.writeText(apiKey.apiKey)}
        >
          {t('partnerPage.copyKey')}
        </button>
        <button type="button" className="secondary" onClick={onDismiss}>
          {t('partnerPage.stored')}
        </button>
      </div>
    </div>
  );
}

function ApiKeys({ partnerId }: { partnerId: string }) {
  const session = useSession();
  const { t, formatDateTime } = useConsoleText();
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
      <h2 id="keys">{t('partnerPage.apiKeys')}</h2>
      {fresh && <FreshKey apiKey={fresh} onDismiss={() => setFresh(undefined)} />}
      <ErrorNotice error={revoke.error} title={t('partnerPage.notRevoked')} />
      <LoadedList state={keys} label={t('partnerPage.apiKeys')} empty={t('partnerPage.none')}>
        {(items) => (
          <DataTable
            caption={t('partnerPage.apiKeys')}
            columns={[
              t('partnerPage.key'),
              t('partnerPage.keyColumnName'),
              t('partnerPage.created'),
              t('partnerPage.status'),
              session.canWrite && t('partnerPage.action'),
            ]}
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
                        question={t('partnerPage.revokeQuestion', { prefix: k.prefix })}
                        onConfirmed={() => revokeKey(k)}
                      >
                        {t('partnerPage.revoke')}
                        <span className="visually-hidden">
                          {' '}
                          {t('partnerPage.revokeWhich', { prefix: k.prefix })}
                        </span>
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
          label={t('partnerPage.createKey')}
          failure={t('partnerPage.keyNotCreated')}
          submit={t('partnerPage.submitKey')}
          resetOnSuccess
          onSubmit={create}
        >
          <TextField
            label={t('partnerPage.keyName')}
            name="keyName"
            maxLength={200}
            hint={t('partnerPage.keyNameHint')}
          />
        </ActionForm>
      )}
    </section>
  );
}

export function PartnerPage({ id }: { id: string }) {
  const session = useSession();
  const { t, formatDateTime } = useConsoleText();
  const partner = useLoad(
    (signal) => session.api.get('/admin/v1/partners/{partnerId}', { path: { partnerId: id }, signal }),
    [id],
  );
  const [current, setCurrent] = useState<Partner | undefined>();
  const shown = current?.id === id ? current : partner.data;
  return (
    <>
      <BackLink to="/console/partners">{t('nav.partners')}</BackLink>
      <LoadState state={partner} label={t('partnerPage.loading')}>
        {() =>
          shown && (
            <>
              <PageTitle title={shown.name} status={shown.status} />
              <Facts
                facts={[
                  [t('partnerPage.partnerId'), <code>{shown.id}</code>],
                  [t('partnerPage.created'), formatDateTime(shown.createdAt)],
                ]}
              />
              <p>
                <Link to={`/console/promotions?partnerId=${shown.id}`}>{t('partnerPage.promotions')}</Link>
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
