// Partners: the list and a form to register one.
import { SectionTitle } from '../components/PageHeader.tsx';
import { Link, navigate } from '../../shared/router.ts';
import { StatusBadge, TextArea, TextField } from '../../shared/ui.tsx';
import { usePartnerList } from '../choices.ts';
import { ActionForm } from '../components/ActionForm.tsx';
import { DataTable } from '../../shared/data-table.tsx';
import { LoadedList } from '../components/LoadedList.tsx';
import { field, lines } from '../forms.ts';
import { useConsoleText } from '../i18n.ts';
import { useSession } from '../session.tsx';

export function PartnersPage() {
  const session = useSession();
  const partners = usePartnerList();
  const { t, formatDateTime } = useConsoleText();

  const create = async (form: FormData) => {
    const partner = await session.api.post('/admin/v1/partners', {
      body: {
        name: field(form, 'name'),
        allowedIps: lines(field(form, 'allowedIps')),
        redirectUrls: lines(field(form, 'redirectUrls')),
      },
    });
    navigate(`/console/partners/${partner.id}`);
  };

  return (
    <>
      <SectionTitle section="partners" />
      <LoadedList state={partners} label={t('partnersPage.list')} empty={t('partnersPage.none')}>
        {(items) => (
          <DataTable
            caption={t('partnersPage.caption')}
            columns={[
              t('partnersPage.name'),
              t('partnersPage.status'),
              t('partnersPage.allowedAddresses'),
              t('partnersPage.created'),
            ]}
          >
            {items.map((p) => (
              <tr key={p.id}>
                <td>
                  <Link to={`/console/partners/${p.id}`}>{p.name}</Link>
                  <br />
                  <code className="muted">{p.id}</code>
                </td>
                <td>
                  <StatusBadge status={p.status} />
                </td>
                <td>
                  {p.allowedIps.length === 0 ? (
                    <span className="muted">{t('partnersPage.noAddresses')}</span>
                  ) : (
                    p.allowedIps.join(', ')
                  )}
                </td>
                <td>{formatDateTime(p.createdAt)}</td>
              </tr>
            ))}
          </DataTable>
        )}
      </LoadedList>

      {session.canWrite && (
        <ActionForm
          heading={t('partnersPage.register')}
          failure={t('partnersPage.notCreated')}
          submit={t('partnersPage.create')}
          onSubmit={create}
        >
          <TextField label={t('partnersPage.name')} name="name" required maxLength={200} />
          <TextArea
            label={t('partnersPage.allowedIps')}
            name="allowedIps"
            hint={t('partnersPage.allowedIpsHint')}
          />
          <TextArea
            label={t('partnersPage.redirectUrls')}
            name="redirectUrls"
            hint={t('partnersPage.redirectUrlsHint')}
          />
        </ActionForm>
      )}
    </>
  );
}
