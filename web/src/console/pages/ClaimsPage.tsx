// Claims: filtered by status, partner, user, promotion and budget; each with its history and the
// moves an operator may make (reject a RESERVED claim, retry a FAILED one).
import { useState } from 'react';
import type { FormEvent } from 'react';
import { query } from '../../shared/api.ts';
import { formatDateTime, formatUnits } from '../../shared/format.ts';
import { navigate, useLocation } from '../../shared/router.ts';
import { ErrorNotice, LoadState, SelectField, StatusBadge, TextField, useAction, useLoad } from '../../shared/ui.tsx';
import { field } from '../forms.ts';
import { useSession } from '../session.tsx';
import type { Budget, Claim, ClaimEvent, Items, Partner } from '../types.ts';

const STATUSES = ['RESERVED', 'REQUESTED', 'SUCCEEDED', 'FAILED', 'REJECTED'];
const FILTERS = ['status', 'partnerId', 'partnerUid', 'promotionId', 'budgetId'] as const;

function HistoryList({ claimId }: { claimId: string }) {
  const session = useSession();
  const history = useLoad(() => session.api<Items<ClaimEvent>>('GET', `/admin/v1/claims/${claimId}/history`), [claimId]);
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
  const action = useAction();
  const reject = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const reason = field(new FormData(event.currentTarget), 'reason');
    await action.run(async () => {
      await session.api('POST', `/admin/v1/claims/${claim.id}/reject`, { reason });
      setOpen(undefined);
      onChanged();
    });
  };
  const retry = async () => {
    await action.run(async () => {
      await session.api('POST', `/admin/v1/claims/${claim.id}/retry`);
      onChanged();
    });
  };
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
          {claim.source.toLowerCase()} <span className="muted">{claim.periodKey}</span>
        </td>
        <td className="number">
          {formatUnits(claim.amount, claim.decimals)} {claim.assetSymbol}
        </td>
        <td>
          <StatusBadge status={claim.status} />
          {claim.reason && <div className="muted">{claim.reason}</div>}
        </td>
        <td>
          <div className="actions compact">
            <button type="button" className="secondary" aria-expanded={open === 'history'} onClick={() => setOpen(open === 'history' ? undefined : 'history')}>
              History<span className="visually-hidden"> of claim {claim.id}</span>
            </button>
            {session.canWrite && claim.status === 'RESERVED' && (
              <button type="button" className="danger" aria-expanded={open === 'reject'} onClick={() => setOpen(open === 'reject' ? undefined : 'reject')}>
                Reject<span className="visually-hidden"> claim {claim.id}</span>
              </button>
            )}
            {session.canWrite && claim.status === 'FAILED' && (
              <button type="button" disabled={action.busy} onClick={() => void retry()}>
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
              <form onSubmit={(e) => void reject(e)} aria-label={`Reject claim ${claim.id}`}>
                <TextField label="Reason" name="reason" required maxLength={200} hint="Kept in the claim's history. The amount returns to the budget." />
                <div className="actions">
                  <button type="submit" className="danger" disabled={action.busy}>
                    Reject claim
                  </button>
                </div>
              </form>
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
  const filter = Object.fromEntries(FILTERS.map((f) => [f, search.get(f) ?? ''])) as Record<(typeof FILTERS)[number], string>;
  const partners = useLoad(() => session.api<Items<Partner>>('GET', '/admin/v1/partners?limit=500'), []);
  const budgets = useLoad(() => session.api<Items<Budget>>('GET', '/admin/v1/budgets?limit=500'), []);
  const claims = useLoad(() => session.api<Items<Claim>>('GET', `/admin/v1/claims${query({ ...filter, limit: 200 })}`), FILTERS.map((f) => filter[f]));
  const apply = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    navigate(`/console/claims${query(Object.fromEntries(FILTERS.map((f) => [f, field(form, f)])))}`, { replace: true });
  };
  return (
    <>
      <h1>Claims</h1>
      <form onSubmit={apply} aria-label="Filter claims" className="filters" key={search.toString() + String(partners.data?.items.length) + String(budgets.data?.items.length)}>
        <SelectField label="Status" name="status" defaultValue={filter.status} options={[{ value: '', label: 'Any status' }, ...STATUSES.map((s) => ({ value: s, label: s.toLowerCase() }))]} />
        <SelectField label="Partner" name="partnerId" defaultValue={filter.partnerId} options={[{ value: '', label: 'All partners' }, ...(partners.data?.items ?? []).map((p) => ({ value: p.id, label: p.name }))]} />
        <TextField label="Partner user id" name="partnerUid" defaultValue={filter.partnerUid} maxLength={256} />
        <TextField label="Promotion id" name="promotionId" defaultValue={filter.promotionId} maxLength={64} />
        <SelectField label="Budget" name="budgetId" defaultValue={filter.budgetId} options={[{ value: '', label: 'All budgets' }, ...(budgets.data?.items ?? []).map((b) => ({ value: b.id, label: b.name }))]} />
        <div className="actions">
          <button type="submit">Show claims</button>
          <button type="button" className="secondary" onClick={() => navigate('/console/claims', { replace: true })}>
            Clear filters
          </button>
        </div>
      </form>
      <LoadState state={claims} label="claims">
        {(data) =>
          data.items.length === 0 ? (
            <p>No claims match.</p>
          ) : (
            <div className="table-wrap" tabIndex={0} role="region" aria-label="Table, scrolls sideways on small screens">
              <table>
                <caption>
                  {data.items.length === 200 ? 'The newest 200 claims' : `${data.items.length} claim${data.items.length === 1 ? '' : 's'}`}
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Created</th>
                    <th scope="col">User</th>
                    <th scope="col">For</th>
                    <th scope="col" className="number">
                      Amount
                    </th>
                    <th scope="col">Status</th>
                    <th scope="col">Actions</th>
                  </tr>
                </thead>
                <tbody>
                  {data.items.map((c) => (
                    <ClaimRow key={`${c.id}-${c.status}`} claim={c} onChanged={claims.reload} />
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </LoadState>
    </>
  );
}
