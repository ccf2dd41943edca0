// Admin credentials (OWNER only): the list (never the secrets), a new one with its role whose
// secret is shown once, and revoking one with confirmation.
import { useState } from 'react';
import { DataTable } from '../../shared/data-table.tsx';
import { ErrorNotice, SelectField, StatusBadge, TextField, useAction, useLoad } from '../../shared/ui.tsx';
import { ActionForm } from '../components/ActionForm.tsx';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { LoadedList } from '../components/LoadedList.tsx';
import { ShownOnce } from '../components/ShownOnce.tsx';
import { field } from '../forms.ts';
import { useConsoleText } from '../i18n.ts';
import { useSession } from '../session.tsx';

const ROLES = ['VIEWER', 'OPERATOR', 'OWNER'] as const;
type Role = (typeof ROLES)[number];

export function CredentialsPage() {
  const session = useSession();
  const { t, formatDateTime } = useConsoleText();
  const credentials = useLoad((signal) => session.api.get('/admin/v1/admin-credentials', { signal }), []);
  const [fresh, setFresh] = useState<{ name: string; secret: string } | undefined>();
  const revoke = useAction();
  const owner = session.identity.role === 'OWNER';
  const create = async (form: FormData) => {
    const role = ROLES.find((r) => r === field(form, 'role')) ?? 'VIEWER';
    const created = await session.api.post('/admin/v1/admin-credentials', {
      body: { name: field(form, 'name'), role: role satisfies Role },
    });
    setFresh({ name: created.name, secret: created.secret });
    credentials.reload();
  };
  const revokeOne = (credentialId: string) =>
    void revoke.run(async () => {
      await session.api.delete('/admin/v1/admin-credentials/{credentialId}', { path: { credentialId } });
      credentials.reload();
    });
  return (
    <>
      <h1>{t('nav.credentials')}</h1>
      <p className="muted">{t('credentials.intro')}</p>
      {fresh && (
        <ShownOnce
          label={t('credentials.newSecret', { name: fresh.name })}
          secret={fresh.secret}
          onDismiss={() => setFresh(undefined)}
        />
      )}
      <ErrorNotice error={revoke.error} title={t('credentials.notRevoked')} />
      <LoadedList state={credentials} label={t('nav.credentials')} empty={t('credentials.none')}>
        {(items) => (
          <DataTable
            caption={t('nav.credentials')}
            columns={[
              t('credentials.name'),
              t('credentials.role'),
              t('credentials.prefix'),
              t('credentials.created'),
              t('credentials.status'),
              owner && t('common.actions'),
            ]}
          >
            {items.map((c) => (
              <tr key={c.id}>
                <td>{c.name}</td>
                <td>{t(`credentials.roles.${c.role}`)}</td>
                <td>
                  <code>{c.prefix}</code>
                </td>
                <td>{formatDateTime(c.createdAt)}</td>
                <td>
                  <StatusBadge status={c.revokedAt ? 'REVOKED' : 'ACTIVE'} />
                  {c.revokedAt && <div className="muted">{formatDateTime(c.revokedAt)}</div>}
                </td>
                {owner && (
                  <td>
                    {!c.revokedAt && (
                      <ConfirmButton
                        className="danger"
                        disabled={revoke.busy}
                        question={t('credentials.revokeQuestion', { name: c.name })}
                        onConfirmed={() => revokeOne(c.id)}
                      >
                        {t('credentials.revoke')}
                        <span className="visually-hidden"> {c.name}</span>
                      </ConfirmButton>
                    )}
                  </td>
                )}
              </tr>
            ))}
          </DataTable>
        )}
      </LoadedList>
      {owner && (
        <ActionForm
          heading={t('credentials.create')}
          failure={t('credentials.notCreated')}
          submit={t('credentials.create')}
          resetOnSuccess
          onSubmit={create}
        >
          <TextField label={t('credentials.name')} name="name" required maxLength={200} />
          <SelectField
            label={t('credentials.role')}
            name="role"
            defaultValue="VIEWER"
            options={ROLES.map((r) => ({ value: r, label: t(`credentials.roles.${r}`) }))}
            hint={t('credentials.roleHint')}
          />
        </ActionForm>
      )}
    </>
  );
}
