// Partners: the list and a form to register one.
import { SectionTitle } from '../components/PageHeader.tsx';
import { formatDateTime } from '../../shared/format.ts';
import { Link, navigate } from '../../shared/router.ts';
import { StatusBadge, TextArea, TextField } from '../../shared/ui.tsx';
import { usePartnerList } from '../choices.ts';
import { ActionForm } from '../components/ActionForm.tsx';
import { DataTable } from '../../shared/data-table.tsx';
import { LoadedList } from '../components/LoadedList.tsx';
import { field, lines } from '../forms.ts';
import { useSession } from '../session.tsx';

export function PartnersPage() {
  const session = useSession();
  const partners = usePartnerList();

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
      <LoadedList state={partners} label="partners" empty="No partners yet.">
        {(items) => (
          <DataTable caption="Partners" columns={['Name', 'Status', 'Allowed addresses', 'Created']}>
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
                  {p.allowedIps.length === 0 ? <span className="muted">none</span> : p.allowedIps.join(', ')}
                </td>
                <td>{formatDateTime(p.createdAt)}</td>
              </tr>
            ))}
          </DataTable>
        )}
      </LoadedList>

      {session.canWrite && (
        <ActionForm
          heading="Register a partner"
          failure="The partner was not created"
          submit="Create partner"
          onSubmit={create}
        >
          <TextField label="Name" name="name" required maxLength={200} />
          <TextArea
            label="Allowed server addresses"
            name="allowedIps"
            hint="IPs or CIDRs that may report progress, one per line (e.g. 203.0.113.7 or 10.0.0.0/8)."
          />
          <TextArea
            label="Redirect URLs"
            name="redirectUrls"
            hint="Exact URLs the login may return to, one per line; only the query may vary."
          />
        </ActionForm>
      )}
    </>
  );
}
