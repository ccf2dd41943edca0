// Promotions: filtered by partner and status, and a form to create one.
import type { FormEvent } from 'react';
import { query } from '../../shared/api.ts';
import { formatDateTime } from '../../shared/format.ts';
import { Link, navigate, useLocation } from '../../shared/router.ts';
import { ErrorNotice, LoadState, SelectField, StatusBadge, TextField, useAction, useLoad } from '../../shared/ui.tsx';
import { field, localToInstant } from '../forms.ts';
import { useSession } from '../session.tsx';
import type { Items, Partner, Promotion } from '../types.ts';

export const PROMOTION_TYPES = [
  { value: 'COMPOSITE', label: 'Composite (missions in groups)' },
  { value: 'DAILY_CHECK', label: 'Daily check-in (streaks)' },
];

export function PromotionsPage() {
  const session = useSession();
  const { search } = useLocation();
  const partnerId = search.get('partnerId') ?? '';
  const status = search.get('status') ?? '';
  const partners = useLoad(() => session.api<Items<Partner>>('GET', '/admin/v1/partners?limit=500'), []);
  const promotions = useLoad(
    () => session.api<Items<Promotion>>('GET', `/admin/v1/promotions${query({ partnerId, status, limit: 500 })}`),
    [partnerId, status],
  );
  const create = useAction();
  const partnerName = (id: string) => partners.data?.items.find((p) => p.id === id)?.name ?? id;

  const filter = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    navigate(`/console/promotions${query({ partnerId: field(form, 'partnerId'), status: field(form, 'status') })}`, { replace: true });
  };

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    await create.run(async () => {
      const endAt = localToInstant(field(form, 'endAt'));
      const promotion = await session.api<Promotion>('POST', '/admin/v1/promotions', {
        partnerId: field(form, 'partnerId'),
        type: field(form, 'type'),
        title: field(form, 'title'),
        timezone: field(form, 'timezone'),
        startAt: localToInstant(field(form, 'startAt')) ?? field(form, 'startAt'),
        ...(endAt !== undefined && { endAt }),
        status: field(form, 'status'),
      });
      navigate(`/console/promotions/${promotion.id}`);
    });
  };

  const partnerOptions = (partners.data?.items ?? []).map((p) => ({ value: p.id, label: p.name }));
  const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone;

  return (
    <>
      <h1>Promotions</h1>
      <form onSubmit={filter} aria-label="Filter promotions" className="filters">
        <SelectField
          label="Partner"
          name="partnerId"
          defaultValue={partnerId}
          key={`p-${partnerId}-${partnerOptions.length}`}
          options={[{ value: '', label: 'All partners' }, ...partnerOptions]}
        />
        <SelectField
          label="Status"
          name="status"
          defaultValue={status}
          options={[
            { value: '', label: 'Any status' },
            { value: 'ACTIVE', label: 'Active' },
            { value: 'INACTIVE', label: 'Inactive' },
          ]}
        />
        <div className="actions">
          <button type="submit" className="secondary">
            Show promotions
          </button>
        </div>
      </form>
      <LoadState state={promotions} label="promotions">
        {(data) =>
          data.items.length === 0 ? (
            <p>No promotions match.</p>
          ) : (
            <div className="table-wrap" tabIndex={0} role="region" aria-label="Table, scrolls sideways on small screens">
              <table>
                <caption className="visually-hidden">Promotions</caption>
                <thead>
                  <tr>
                    <th scope="col">Title</th>
                    <th scope="col">Partner</th>
                    <th scope="col">Type</th>
                    <th scope="col">Status</th>
                    <th scope="col">Starts</th>
                  </tr>
                </thead>
                <tbody>
                  {data.items.map((p) => (
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
                </tbody>
              </table>
            </div>
          )
        }
      </LoadState>

      {session.canWrite && (
        <form onSubmit={(e) => void submit(e)} aria-labelledby="new-promotion">
          <h2 id="new-promotion">Create a promotion</h2>
          <ErrorNotice error={create.error} title="The promotion was not created" />
          {partnerOptions.length === 0 ? (
            <p className="notice warn">Register a partner first.</p>
          ) : (
            <>
              <SelectField label="Partner" name="partnerId" defaultValue={partnerId} key={`np-${partnerOptions.length}`} options={partnerOptions} required />
              <SelectField label="Type" name="type" options={PROMOTION_TYPES} />
              <TextField label="Title" name="title" required maxLength={200} />
              <TextField
                label="Time zone"
                name="timezone"
                defaultValue="Asia/Seoul"
                required
                hint="IANA name; days and weeks of missions are counted in it."
              />
              <TextField label="Starts" name="startAt" type="datetime-local" required hint={`In your time zone (${browserZone}).`} />
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
              <div className="actions">
                <button type="submit" disabled={create.busy}>
                  Create promotion
                </button>
              </div>
            </>
          )}
        </form>
      )}
    </>
  );
}
