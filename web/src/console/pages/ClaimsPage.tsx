// Claims: filtered by status, partner, user, promotion and budget; each with its history and the
// moves an operator may make (reject a RESERVED claim, retry a FAILED one).
import { SectionTitle } from '../components/PageHeader.tsx';
import { useConsoleText } from '../i18n.ts';
import { SelectField, TextField, useLoad } from '../../shared/ui.tsx';
import { budgetOptions, partnerOptions, useBudgetList, usePartnerList, withAny } from '../choices.ts';
import { DataTable } from '../../shared/data-table.tsx';
import { FilterForm, useQueryFilters } from '../components/FilterForm.tsx';
import { LoadedList } from '../components/LoadedList.tsx';
import { useSession } from '../session.tsx';
import type { ClaimStatus } from '../types.ts';

const STATUSES: ClaimStatus[] = ['RESERVED', 'REQUESTED', 'SUCCEEDED', 'FAILED', 'REJECTED'];
const FILTERS = ['status', 'partnerId', 'partnerUid', 'promotionId', 'budgetId'] as const;
/** The newest this many claims are listed. */
const PAGE = 200;

import { ClaimRow } from './claims/ClaimRow.tsx';
import { WaitingRewards } from './claims/WaitingRewards.tsx';

export function ClaimsPage() {
  const session = useSession();
  const { t, formatNumber } = useConsoleText();
  const { filter, search } = useQueryFilters(FILTERS);
  const partners = usePartnerList();
  const budgets = useBudgetList();
  const claims = useLoad(
    (signal) =>
      session.api.get('/admin/v1/claims', {
        // The status comes from the address bar; the service refuses one that is not a status.
        query: { ...filter, status: (filter.status || undefined) as ClaimStatus | undefined, limit: PAGE },
        signal,
      }),
    FILTERS.map((f) => filter[f]),
  );
  return (
    <>
      <SectionTitle section="claims" />
      <FilterForm
        key={search.toString() + String(partners.data?.items.length) + String(budgets.data?.items.length)}
        label={t('claims.filter')}
        path="/console/claims"
        names={FILTERS}
        reload={claims.reload}
        submit={t('claims.show')}
        clear={t('claims.clear')}
      >
        <SelectField
          label={t('claims.status')}
          name="status"
          defaultValue={filter.status}
          options={withAny(
            t('claims.anyStatus'),
            STATUSES.map((s) => ({ value: s, label: t(`claims.statuses.${s}`) })),
          )}
        />
        <SelectField
          label={t('claims.partner')}
          name="partnerId"
          defaultValue={filter.partnerId}
          options={withAny(t('claims.allPartners'), partnerOptions(partners.data?.items))}
        />
        <TextField
          label={t('claims.partnerUid')}
          name="partnerUid"
          defaultValue={filter.partnerUid}
          maxLength={256}
        />
        <TextField
          label={t('claims.promotionId')}
          name="promotionId"
          defaultValue={filter.promotionId}
          maxLength={64}
        />
        <SelectField
          label={t('claims.budget')}
          name="budgetId"
          defaultValue={filter.budgetId}
          options={withAny(
            t('claims.allBudgets'),
            budgetOptions(budgets.data?.items ?? [], (b) => b.name),
          )}
        />
      </FilterForm>
      <LoadedList state={claims} label={t('nav.claims')} empty={t('claims.none')}>
        {(items) => (
          <DataTable
            showCaption
            caption={
              items.length === PAGE
                ? t('claims.newest', { count: PAGE, shown: formatNumber(PAGE) })
                : t('claims.count', { count: items.length, shown: formatNumber(items.length) })
            }
            columns={[
              t('claims.created'),
              t('claims.user'),
              t('claims.for'),
              { label: t('claims.amount'), numeric: true },
              t('claims.status'),
              t('common.actions'),
            ]}
          >
            {items.map((c) => (
              <ClaimRow key={`${c.id}-${c.status}`} claim={c} onChanged={claims.reload} />
            ))}
          </DataTable>
        )}
      </LoadedList>
      {/* What has no claim yet (users not linked) or is not paid yet (no wallet): never taken for lost. */}
      {(filter.status === '' || filter.status === 'REQUESTED') && (
        <WaitingRewards
          {...(filter.partnerId !== '' && { partnerId: filter.partnerId })}
          {...(filter.partnerUid !== '' && { partnerUid: filter.partnerUid })}
        />
      )}
    </>
  );
}
