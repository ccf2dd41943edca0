// Claims: filtered by status, partner, user, promotion and budget; each with its history and the
// moves an operator may make (reject a RESERVED claim, retry a FAILED one).
import { SectionTitle } from '../components/PageHeader.tsx';
import { useState } from 'react';
import { formatUnits } from '../../shared/format.ts';
import { useConsoleText } from '../i18n.ts';
import { navigate, useLocation } from '../../shared/router.ts';
import {
  ErrorNotice,
  LoadState,
  SelectField,
  StatusBadge,
  TextField,
  useAction,
  useLoad,
} from '../../shared/ui.tsx';
import { partnerOptions, useBudgetList, usePartnerList, withAny } from '../choices.ts';
import { ActionForm } from '../components/ActionForm.tsx';
import { DataTable } from '../../shared/data-table.tsx';
import { FilterForm } from '../components/FilterForm.tsx';
import { LoadedList } from '../components/LoadedList.tsx';
import { field } from '../forms.ts';
import { useSession } from '../session.tsx';
import type { Claim, ClaimStatus } from '../types.ts';

const STATUSES: ClaimStatus[] = ['RESERVED', 'REQUESTED', 'SUCCEEDED', 'FAILED', 'REJECTED'];
const FILTERS = ['status', 'partnerId', 'partnerUid', 'promotionId', 'budgetId'] as const;
/** The newest this many claims are listed. */
const PAGE = 200;

function HistoryList({ claimId }: { claimId: string }) {
  const session = useSession();
  const { t, formatDateTime } = useConsoleText();
  const history = useLoad(
    (signal) => session.api.get('/admin/v1/claims/{id}/history', { path: { id: claimId }, signal }),
    [claimId],
  );
  return (
    <LoadState state={history} label={t('claims.history')}>
      {(data) => (
        <ol className="history">
          {data.items.map((e, i) => (
            <li key={i}>
              {formatDateTime(e.at)}: {e.from ?? t('claims.new')} → <strong>{e.to}</strong>
              {e.reason && <span className="muted"> ({e.reason})</span>}
            </li>
          ))}
        </ol>
      )}
    </LoadState>
  );
}

function ClaimRow({ claim, onChanged }: { claim: Claim; onChanged: () => void }) {
  const session = useSession();
  const { t, formatDateTime } = useConsoleText();
  const [open, setOpen] = useState<'history' | 'reject' | undefined>();
  const toggle = (panel: 'history' | 'reject') => setOpen(open === panel ? undefined : panel);
  // Reject and retry share one state: the row shows the failure of either.
  const action = useAction();
  const path = { id: claim.id };
  const reject = async (form: FormData) => {
    await session.api.post('/admin/v1/claims/{id}/reject', { path, body: { reason: field(form, 'reason') } });
    setOpen(undefined);
    onChanged();
  };
  const retry = () =>
    void action.run(async () => {
      await session.api.post('/admin/v1/claims/{id}/retry', { path });
      onChanged();
    });
  return (
    <>
      <tr>
        <td>
          {formatDateTime(claim.createdAt)}
          <br />
          <code className="muted">{claim.id}</code>
        </td>
        <td>
          {claim.partnerUid}
          {claim.accountId === null && <div className="muted">{t('claims.notLinked')}</div>}
        </td>
        <td>
          {claim.missionTitle ?? claim.source.toLowerCase()}
          {claim.missionKey && (
            <>
              {' '}
              <code className="muted">{claim.missionKey}</code>
            </>
          )}
          <div className="muted">{claim.periodKey}</div>
        </td>
        <td className="number">
          {formatUnits(claim.amount, claim.decimals)} {claim.assetSymbol}
        </td>
        <td>
          <StatusBadge status={claim.status} />
          {claim.reason && <div className="muted">{claim.reason}</div>}
          {/* [chain payout] the claim's transaction, linked to the network's explorer */}
          {claim.txHash && (
            <div className="muted" data-testid="claim-tx">
              tx{' '}
              {claim.explorerUrl ? (
                <a href={claim.explorerUrl} rel="noreferrer" target="_blank">
                  {claim.txHash.slice(0, 12)}…
                </a>
              ) : (
                <code title={claim.txHash}>{claim.txHash.slice(0, 12)}…</code>
              )}
            </div>
          )}
        </td>
        <td>
          <div className="actions compact">
            <button
              type="button"
              className="secondary"
              aria-expanded={open === 'history'}
              onClick={() => toggle('history')}
            >
              {t('claims.historyButton')}
              <span className="visually-hidden"> {t('claims.ofClaim', { id: claim.id })}</span>
            </button>
            {session.canWrite && claim.status === 'RESERVED' && (
              <button
                type="button"
                className="danger"
                aria-expanded={open === 'reject'}
                onClick={() => toggle('reject')}
              >
                {t('claims.reject')}
                <span className="visually-hidden"> {t('claims.claimId', { id: claim.id })}</span>
              </button>
            )}
            {session.canWrite && claim.status === 'FAILED' && (
              <button type="button" disabled={action.busy} onClick={retry}>
                {t('claims.retry')}
                <span className="visually-hidden"> {t('claims.ofClaim', { id: claim.id })}</span>
              </button>
            )}
          </div>
        </td>
      </tr>
      {(open !== undefined || action.error !== undefined) && (
        <tr>
          <td colSpan={6}>
            <ErrorNotice error={action.error} title={t('claims.unchanged')} />
            {open === 'history' && <HistoryList claimId={claim.id} />}
            {open === 'reject' && (
              <ActionForm
                label={t('claims.rejectLabel', { id: claim.id })}
                failure={t('claims.unchanged')}
                submit={t('claims.rejectSubmit')}
                submitClassName="danger"
                action={action}
                hideError
                onSubmit={reject}
              >
                <TextField
                  label={t('claims.reason')}
                  name="reason"
                  required
                  maxLength={200}
                  hint={t('claims.reasonHint')}
                />
              </ActionForm>
            )}
          </td>
        </tr>
      )}
    </>
  );
}

export function ClaimsPage() {
  const session = useSession();
  const { t, formatNumber } = useConsoleText();
  const { search } = useLocation();
  const filter = Object.fromEntries(FILTERS.map((f) => [f, search.get(f) ?? ''])) as Record<
    (typeof FILTERS)[number],
    string
  >;
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
        submit={<button type="submit">{t('claims.show')}</button>}
        moreActions={
          <button
            type="button"
            className="secondary"
            onClick={() => navigate('/console/claims', { replace: true })}
          >
            {t('claims.clear')}
          </button>
        }
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
            (budgets.data?.items ?? []).map((b) => ({ value: b.id, label: b.name })),
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
    </>
  );
}
