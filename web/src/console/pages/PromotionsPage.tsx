// Promotions: filtered by partner and status, and a form to create one. The form's start is typed in
// the operator's time zone and read back, as it is typed, in the promotion's (which counts its days).
import { useState } from 'react';
import { SectionTitle } from '../components/PageHeader.tsx';
import { Link, navigate, useLocation } from '../../shared/router.ts';
import { SelectField, StatusBadge, TextField, useLoad } from '../../shared/ui.tsx';
import { LIST_LIMIT, partnerOptions, usePartnerList, withAny } from '../choices.ts';
import { ActionForm } from '../components/ActionForm.tsx';
import { DataTable } from '../../shared/data-table.tsx';
import { FilterForm } from '../components/FilterForm.tsx';
import { LoadedList } from '../components/LoadedList.tsx';
import { choice, field, inZone, localToInstant } from '../forms.ts';
import { useConsoleText } from '../i18n.ts';
import { useSession } from '../session.tsx';
import type { Promotion } from '../types.ts';
import { TitleFields, titlesBody } from '../components/TitleFields.tsx';

export function PromotionsPage() {
  const session = useSession();
  const { t, formatDateTime, locale } = useConsoleText();
  const { search } = useLocation();
  const [zone, setZone] = useState('Asia/Seoul');
  const [start, setStart] = useState('');
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
  // Which zone applies, and once a start is typed, that instant in the promotion's zone too.
  const startsHint = (value: string) => {
    const instant = localToInstant(value);
    const promotionZone = zone || '—';
    return instant
      ? t('promotionsPage.startsBoth', {
          zone: browserZone,
          promotionZone,
          there: inZone(instant, promotionZone, locale),
        })
      : t('promotionsPage.startsHint', { zone: browserZone, promotionZone });
  };
  const statuses = [
    { value: 'ACTIVE', label: t('promotionsPage.active') },
    { value: 'INACTIVE', label: t('promotionsPage.inactive') },
  ];
  const types = [
    { value: 'COMPOSITE', label: t('promotionsPage.composite') },
    { value: 'DAILY_CHECK', label: t('promotionsPage.dailyCheck') },
  ];

  return (
    <>
      <SectionTitle section="promotions" />
      <FilterForm
        label={t('promotionsPage.filter')}
        path="/console/promotions"
        names={['partnerId', 'status']}
        reload={promotions.reload}
        submit={t('promotionsPage.show')}
      >
        <SelectField
          label={t('promotionsPage.partner')}
          name="partnerId"
          defaultValue={partnerId}
          key={`p-${partnerId}-${choices.length}`}
          options={withAny(t('promotionsPage.allPartners'), choices)}
        />
        <SelectField
          label={t('promotionsPage.status')}
          name="status"
          defaultValue={status}
          options={withAny(t('promotionsPage.anyStatus'), statuses)}
        />
      </FilterForm>
      <LoadedList state={promotions} label={t('promotionsPage.list')} empty={t('promotionsPage.none')}>
        {(items) => (
          <DataTable
            caption={t('promotionsPage.caption')}
            columns={[
              t('promotionsPage.title'),
              t('promotionsPage.partner'),
              t('promotionsPage.type'),
              t('promotionsPage.status'),
              t('promotionsPage.starts'),
            ]}
          >
            {items.map((p) => (
              <tr key={p.id}>
                <td>
                  <Link to={`/console/promotions/${p.id}`}>{p.title}</Link>
                </td>
                <td>{partnerName(p.partnerId)}</td>
                <td>
                  {t(p.type === 'COMPOSITE' ? 'promotionsPage.composite' : 'promotionsPage.dailyCheck')}
                </td>
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
          heading={t('promotionsPage.create')}
          failure={t('promotionsPage.notCreated')}
          submit={t('promotionsPage.submit')}
          onSubmit={create}
          unavailable={
            choices.length === 0 ? (
              <p className="notice warn">{t('promotionsPage.needPartner')}</p>
            ) : undefined
          }
        >
          <SelectField
            label={t('promotionsPage.partner')}
            name="partnerId"
            defaultValue={partnerId}
            key={`np-${choices.length}`}
            options={choices}
            required
          />
          <SelectField label={t('promotionsPage.type')} name="type" options={types} />
          <TextField label={t('promotionsPage.title')} name="title" required maxLength={200} />
          <TitleFields />
          <TextField
            label={t('promotionsPage.timezone')}
            name="timezone"
            defaultValue="Asia/Seoul"
            required
            hint={t('promotionsPage.timezoneHint')}
            onChange={(event) => setZone(event.currentTarget.value.trim())}
          />
          <TextField
            label={t('promotionsPage.starts')}
            name="startAt"
            type="datetime-local"
            required
            onChange={(event) => setStart(event.currentTarget.value)}
            hint={startsHint(start)}
          />
          <TextField label={t('promotionsPage.ends')} name="endAt" type="datetime-local" />
          <SelectField
            label={t('promotionsPage.status')}
            name="status"
            hint={t('promotionsPage.statusHint')}
            options={[
              { value: 'INACTIVE', label: t('promotionsPage.inactiveDraft') },
              { value: 'ACTIVE', label: t('promotionsPage.active') },
            ]}
          />
        </ActionForm>
      )}
    </>
  );
}
