// Promotions: filtered by partner and status, and a form to create one.
import { SectionTitle } from '../components/PageHeader.tsx';
import { formatDateTime } from '../../shared/format.ts';
import { Link, navigate, useLocation } from '../../shared/router.ts';
import { SelectField, StatusBadge, TextField, useLoad } from '../../shared/ui.tsx';
import {
  LIST_LIMIT,
  partnerOptions,
  PROMOTION_STATUSES,
  PROMOTION_TYPES,
  usePartnerList,
  withAny,
} from '../choices.ts';
import { ActionForm } from '../components/ActionForm.tsx';
import { DataTable } from '../../shared/data-table.tsx';
import { FilterForm } from '../components/FilterForm.tsx';
import { LoadedList } from '../components/LoadedList.tsx';
import { choice, field, localToInstant } from '../forms.ts';
import { useSession } from '../session.tsx';
import type { Promotion } from '../types.ts';
import { TitleFields, titlesBody } from '../components/TitleFields.tsx';

export function PromotionsPage() {
  const session = useSession();
  const { search } = useLocation();
  const partnerId = search.get('partnerId') ?? '';
  const status = search.get('status') ?? '';
  const partners = usePartnerList();
  const promotions = useLoad(
    (signal) =>
      session.api.get('/admin/v1/promotions', {
        // From the address bar; the service refuses a status that is not one.
        query: {
          partnerId,
          status: (status || undefined) as Promotion['status'] | undefined,
          limit: LIST_LIMIT,
        },
        signal,
      }),
    [partnerId, status],
  );
  const partnerName = (id: string) => partners.data?.items.find((p) => p.id === id)?.name ?? id;

  const create = async (form: FormData) => {
    const endAt = localToInstant(field(form, 'endAt'));
    const promotion = await session.api.post('/admin/v1/promotions', {
      body: {
        partnerId: field(form, 'partnerId'),
        type: choice<Promotion['type']>(form, 'type'),
        title: field(form, 'title'),
        ...titlesBody(form),
        timezone: field(form, 'timezone'),
        startAt: localToInstant(field(form, 'startAt')) ?? field(form, 'startAt'),
        ...(endAt !== undefined && { endAt }),
        status: choice<Promotion['status']>(form, 'status'),
      },
    });
    navigate(`/console/promotions/${promotion.id}`);
  };

  const choices = partnerOptions(partners.data?.items);
  const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone;

  return (
    <>
      <SectionTitle section="promotions" />
      <FilterForm
        label="Filter promotions"
        path="/console/promotions"
        names={['partnerId', 'status']}
        reload={promotions.reload}
        submit={
          <button type="submit" className="secondary">
            Show promotions
          </button>
        }
      >
        <SelectField
          label="Partner"
          name="partnerId"
          defaultValue={partnerId}
          key={`p-${partnerId}-${choices.length}`}
          options={withAny('All partners', choices)}
        />
        <SelectField
          label="Status"
          name="status"
          defaultValue={status}
          options={withAny('Any status', [...PROMOTION_STATUSES].reverse())}
        />
      </FilterForm>
      <LoadedList state={promotions} label="promotions" empty="No promotions match.">
        {(items) => (
          <DataTable caption="Promotions" columns={['Title', 'Partner', 'Type', 'Status', 'Starts']}>
            {items.map((p) => (
              <tr key={p.id}>
                <td>
                  <Link to={`/console/promotions/${p.id}`}>{p.title}</Link>
                </td>
                <td>{partnerName(p.partnerId)}</td>
                <td>{p.type}</td>
                <td>
                  <StatusBadge status={p.status} />
                </td>
                <td>{formatDateTime(p.startAt)}</td>
              </tr>
            ))}
          </DataTable>
        )}
      </LoadedList>

      {session.canWrite && (
        <ActionForm
          heading="Create a promotion"
          failure="The promotion was not created"
          submit="Create promotion"
          onSubmit={create}
          unavailable={
            choices.length === 0 ? <p className="notice warn">Register a partner first.</p> : undefined
          }
        >
          <SelectField
            label="Partner"
            name="partnerId"
            defaultValue={partnerId}
            key={`np-${choices.length}`}
            options={choices}
            required
          />
          <SelectField label="Type" name="type" options={PROMOTION_TYPES} />
          <TextField label="Title" name="title" required maxLength={200} />
          <TitleFields />
          <TextField
            label="Time zone"
            name="timezone"
            defaultValue="Asia/Seoul"
            required
            hint="IANA name; days and weeks of missions are counted in it."
          />
          <TextField
            label="Starts"
            name="startAt"
            type="datetime-local"
            required
            hint={`In your time zone (${browserZone}).`}
          />
          <TextField label="Ends (optional)" name="endAt" type="datetime-local" />
          <SelectField
            label="Status"
            name="status"
            hint="Once active, the partner, type, start and time zone are locked."
            options={[
              { value: 'INACTIVE', label: 'Inactive (draft)' },
              { value: 'ACTIVE', label: 'Active' },
            ]}
          />
        </ActionForm>
      )}
    </>
  );
}
