// Chain payouts: the payouts of the outbox first (what an operator comes to see: a stuck one), then
// the EVM networks (checked against eth_chainId when saved), assets on them (a token contract or the
// native coin), and the reconciliation of reward wallets with what is on chain.
import { SectionTitle } from '../../components/PageHeader.tsx';
import { useState } from 'react';
import { ErrorNotice, TextField, useLoad } from '../../../shared/ui.tsx';
import { DataTable } from '../../../shared/data-table.tsx';
import { ActionForm } from '../../components/ActionForm.tsx';
import { LoadedList } from '../../components/LoadedList.tsx';
import { PayoutsList } from './PayoutsList.tsx';
import { field } from '../../forms.ts';
import { useConsoleText } from '../../i18n.ts';
import { useSession } from '../../session.tsx';
import type { AnswerOf } from '../../../shared/api-client.ts';

type Reconciliation = AnswerOf<'get', '/admin/v1/reward-wallets/reconcile'>;
type ChainAsset = AnswerOf<'post', '/admin/v1/chain-assets'>;

export function ChainPage() {
  const session = useSession();
  const { t, formatDateTime } = useConsoleText();
  const networks = useLoad((signal) => session.api.get('/admin/v1/chain-networks', { signal }), []);
  const [created, setCreated] = useState<ChainAsset | null>(null);
  const [report, setReport] = useState<Reconciliation | null>(null);
  const [reconcileError, setReconcileError] = useState<unknown>(undefined);
  const createNetwork = async (form: FormData) => {
    const explorer = field(form, 'explorerTxUrl');
    await session.api.post('/admin/v1/chain-networks', {
      body: {
        name: field(form, 'name'),
        chainId: Number(field(form, 'chainId')),
        rpcUrl: field(form, 'rpcUrl'),
        confirmations: Number(field(form, 'confirmations') || '1'),
        ...(explorer !== '' && { explorerTxUrl: explorer }),
      },
    });
    networks.reload();
  };
  const createAsset = async (form: FormData) => {
    const token = field(form, 'tokenAddress');
    const asset = await session.api.post('/admin/v1/chain-assets', {
      body: {
        networkId: field(form, 'networkId'),
        symbol: field(form, 'symbol'),
        name: field(form, 'name'),
        ...(token !== '' && { tokenAddress: token }),
      },
    });
    setCreated(asset);
  };
  const reconcile = async () => {
    setReconcileError(undefined);
    try {
      setReport(await session.api.get('/admin/v1/reward-wallets/reconcile', {}));
    } catch (error) {
      setReconcileError(error);
    }
  };
  return (
    <>
      <SectionTitle section="chain" />
      <PayoutsList />
      <h2>{t('chainPage.networks')}</h2>
      <LoadedList state={networks} label={t('chainPage.networksLoading')} empty={t('chainPage.noNetworks')}>
        {(items) => (
          <DataTable
            caption={t('chainPage.networksCaption')}
            columns={[
              t('chainPage.name'),
              { label: t('chainPage.chainId'), numeric: true },
              t('chainPage.rpc'),
              { label: t('chainPage.confirmations'), numeric: true },
              t('chainPage.explorer'),
              t('chainPage.created'),
            ]}
          >
            {items.map((n) => (
              <tr key={n.id}>
                <td>
                  <strong>{n.name}</strong>
                  <br />
                  <code className="muted">{n.id}</code>
                </td>
                <td className="number">{n.chainId}</td>
                <td>
                  <code>{n.rpcUrl}</code>
                </td>
                <td className="number">{n.confirmations}</td>
                <td>{n.explorerTxUrl ? <code>{n.explorerTxUrl}</code> : '—'}</td>
                <td>{formatDateTime(n.createdAt)}</td>
              </tr>
            ))}
          </DataTable>
        )}
      </LoadedList>
      {session.canWrite && (
        <>
          <ActionForm
            heading={t('chainPage.addNetwork')}
            failure={t('chainPage.networkNotSaved')}
            submit={t('chainPage.addNetworkSubmit')}
            resetOnSuccess
            onSubmit={createNetwork}
          >
            <TextField label={t('chainPage.networkName')} name="name" required maxLength={100} />
            <TextField
              label={t('chainPage.chainId')}
              name="chainId"
              type="number"
              min={1}
              required
              hint={t('chainPage.chainIdHint')}
            />
            <TextField label={t('chainPage.rpcUrl')} name="rpcUrl" type="url" required />
            <TextField
              label={t('chainPage.confirmations')}
              name="confirmations"
              type="number"
              min={1}
              max={1000}
              defaultValue="1"
            />
            <TextField
              label={t('chainPage.explorerTxUrl')}
              name="explorerTxUrl"
              hint={t('chainPage.explorerTxUrlHint')}
            />
          </ActionForm>
          <ActionForm
            heading={t('chainPage.addAsset')}
            failure={t('chainPage.assetNotCreated')}
            submit={t('chainPage.createAsset')}
            resetOnSuccess
            onSubmit={createAsset}
          >
            <TextField label={t('chainPage.networkId')} name="networkId" required />
            <TextField label={t('chainPage.assetSymbol')} name="symbol" required maxLength={16} />
            <TextField label={t('chainPage.assetName')} name="name" required maxLength={200} />
            <TextField
              label={t('chainPage.tokenAddress')}
              name="tokenAddress"
              pattern="0x[0-9a-fA-F]{40}"
              hint={t('chainPage.tokenAddressHint')}
            />
          </ActionForm>
          {created && (
            <p role="status">
              {created.decimals === null
                ? t('chainPage.assetCreatedNoDecimals', { symbol: created.symbol, id: created.id })
                : t('chainPage.assetCreated', {
                    symbol: created.symbol,
                    id: created.id,
                    count: created.decimals,
                  })}
            </p>
          )}
        </>
      )}
      <h2>{t('chainPage.reconciliation')}</h2>
      <p className="muted">{t('chainPage.reconciliationIntro')}</p>
      <button type="button" onClick={() => void reconcile()}>
        {t('chainPage.reconcile')}
      </button>
      <ErrorNotice error={reconcileError} title={t('chainPage.notReconciled')} />
      {report && (
        <DataTable
          caption={t('chainPage.reconciliation')}
          columns={[
            t('chainPage.wallet'),
            t('streaks.budget'),
            { label: t('chainPage.confirmedPayouts'), numeric: true },
            { label: t('chainPage.transfersOnChain'), numeric: true },
            t('chainPage.differences'),
          ]}
        >
          {report.items.map((r) => (
            <tr key={r.walletId}>
              <td>
                <code>{r.address}</code>
              </td>
              <td>
                <code>{r.budgetId}</code>
              </td>
              <td className="number">{r.confirmedPayouts}</td>
              <td className="number">{r.transfersOnChain}</td>
              <td data-testid="reconcile-differences">
                {r.differences.length === 0
                  ? t('chainPage.noDifferences')
                  : r.differences.map((d) => `${d.kind}: ${d.detail}`).join('; ')}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </>
  );
}
