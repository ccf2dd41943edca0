// Claims: filtered by status, partner, user, promotion and budget; each with its history and the
// moves an operator may make (reject a RESERVED claim, retry a FAILED one).
import { SectionTitle } from '../components/PageHeader.tsx';
import { useState } from 'react';
import { formatDateTime, formatUnits } from '../../shared/format.ts';
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
  const history = useLoad(
    (signal) => session.api.get('/admin/v1/claims/{id}/history', { path: { id: claimId }, signal }),
    [claimId],
  );
  return (
    <LoadState state={history} label="history">
      {(data) => (
        <ol className="history">
          {data.items.map((e, i) => (
            <li key={i}>
              {formatDateTime(e.at)}: {e.from ?? 'new'} → <strong>{e.to}</strong>
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
          {claim.accountId === null && <div className="muted">not linked yet</div>}
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
              History<span className="visually-hidden"> of claim {claim.id}</span>
            </button>
            {session.canWrite && claim.status === 'RESERVED' && (
              <button
                type="button"
                className="danger"
                aria-expanded={open === 'reject'}
                onClick={() => toggle('reject')}
              >
                Reject<span className="visually-hidden"> claim {claim.id}</span>
              </button>
            )}
            {session.canWrite && claim.status === 'FAILED' && (
              <button type="button" disabled={action.busy} onClick={retry}>
                Retry payout<span className="visually-hidden"> of claim {claim.id}</span>
              </button>
            )}
          </div>
        </td>
      </tr>
      {(open !== undefined || action.error !== undefined) && (
        <tr>
          <td colSpan={6}>
            <ErrorNotice error={action.error} title="The claim did not change" />
            {open === 'history' && <HistoryList claimId={claim.id} />}
            {open === 'reject' && (
              <ActionForm
                label={`Reject claim ${claim.id}`}
                failure="The claim did not change"
                submit="Reject claim"
                submitClassName="danger"
                action={action}
                hideError
                onSubmit={reject}
              >
                <TextField
                  label="Reason"
                  name="reason"
                  required
                  maxLength={200}
                  hint="Kept in the claim's history. The amount returns to the budget."
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
        label="Filter claims"
        path="/console/claims"
        names={FILTERS}
        reload={claims.reload}
        submit={<button type="submit">Show claims</button>}
        moreActions={
          <button
            type="button"
            className="secondary"
            onClick={() => navigate('/console/claims', { replace: true })}
          >
            Clear filters
          </button>
        }
      >
        <SelectField
          label="Status"
          name="status"
          defaultValue={filter.status}
          options={withAny(
            'Any status',
            STATUSES.map((s) => ({ value: s, label: s.toLowerCase() })),
          )}
        />
        <SelectField
          label="Partner"
          name="partnerId"
          defaultValue={filter.partnerId}
          options={withAny('All partners', partnerOptions(partners.data?.items))}
        />
        <TextField
          label="Partner user id"
          name="partnerUid"
          defaultValue={filter.partnerUid}
          maxLength={256}
        />
        <TextField label="Promotion id" name="promotionId" defaultValue={filter.promotionId} maxLength={64} />
        <SelectField
          label="Budget"
          name="budgetId"
          defaultValue={filter.budgetId}
          options={withAny(
            'All budgets',
            (budgets.data?.items ?? []).map((b) => ({ value: b.id, label: b.name })),
          )}
        />
      </FilterForm>
      <LoadedList state={claims} label="claims" empty="No claims match.">
        {(items) => (
          <DataTable
            showCaption
            caption={
              items.length === PAGE
                ? `The newest ${PAGE} claims`
                : `${items.length} claim${items.length === 1 ? '' : 's'}`
            }
            columns={['Created', 'User', 'For', { label: 'Amount', numeric: true }, 'Status', 'Actions']}
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
