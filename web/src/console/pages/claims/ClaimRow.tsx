// One claim in the claims list: its row, its history and the moves an operator may make (reject a
// RESERVED claim with a reason, retry a FAILED one's payout).
import { useState } from 'react';
import { Amount, HexValue } from '../../../shared/values.tsx';
import { useConsoleText } from '../../i18n.ts';
import { ErrorNotice, LoadState, StatusBadge, TextField, useAction, useLoad } from '../../../shared/ui.tsx';
import { ActionForm } from '../../components/ActionForm.tsx';
import { field } from '../../forms.ts';
import { useSession } from '../../session.tsx';
import type { Claim } from '../../types.ts';

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

export function ClaimRow({ claim, onChanged }: { claim: Claim; onChanged: () => void }) {
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
          {claim.missionTitle ?? t(`claims.sources.${claim.source}`, { defaultValue: claim.source })}
          {claim.missionKey && (
            <>
              {' '}
              <code className="muted">{claim.missionKey}</code>
            </>
          )}
          <div className="muted">
            {claim.periodKey === 'ONCE' ? t('promotionPage.recurrenceWords.ONE_TIME') : claim.periodKey}
          </div>
        </td>
        <td className="number">
          <Amount value={claim.amount} decimals={claim.decimals} symbol={claim.assetSymbol} />
        </td>
        <td>
          <StatusBadge status={claim.status} />
          {claim.waitsForWallet && (
            <div className="muted" data-testid="claim-waits-for-wallet">
              {t('claims.waitsForWallet')}
            </div>
          )}
          {claim.reason && <div className="muted">{claim.reason}</div>}
          {/* [chain payout] the claim's transaction, linked to the network's explorer */}
          {claim.txHash && (
            <div className="muted" data-testid="claim-tx">
              {t('claims.tx')}{' '}
              <HexValue value={claim.txHash} href={claim.explorerUrl} name={t('claims.tx')} />
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
