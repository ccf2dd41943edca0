// Chain payouts: the EVM networks (checked against eth_chainId when saved), assets on them (a token
// contract or the native coin), and the reconciliation of reward wallets with what is on chain.
import { SectionTitle } from '../../components/PageHeader.tsx';
import { useState } from 'react';
import { formatDateTime } from '../../../shared/format.ts';
import { ErrorNotice, TextField, useLoad } from '../../../shared/ui.tsx';
import { DataTable } from '../../../shared/data-table.tsx';
import { ActionForm } from '../../components/ActionForm.tsx';
import { LoadedList } from '../../components/LoadedList.tsx';
import { field } from '../../forms.ts';
import { useSession } from '../../session.tsx';
import type { AnswerOf } from '../../../shared/api-client.ts';

type Reconciliation = AnswerOf<'get', '/admin/v1/reward-wallets/reconcile'>;

export function ChainPage() {
  const session = useSession();
  const networks = useLoad((signal) => session.api.get('/admin/v1/chain-networks', { signal }), []);
  const [created, setCreated] = useState<string | null>(null);
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
    setCreated(`${asset.symbol} (${asset.id}), ${asset.decimals ?? 'no'} decimals`);
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
      <h2>Networks</h2>
      <LoadedList state={networks} label="networks" empty="No chain network yet.">
        {(items) => (
          <DataTable
            caption="Chain networks"
            columns={[
              'Name',
              { label: 'Chain id', numeric: true },
              'RPC',
              { label: 'Confirmations', numeric: true },
              'Explorer',
              'Created',
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
            heading="Add a network"
            failure="The network was not saved"
            submit="Add network"
            resetOnSuccess
            onSubmit={createNetwork}
          >
            <TextField label="Network name" name="name" required maxLength={100} />
            <TextField
              label="Chain id"
              name="chainId"
              type="number"
              min={1}
              required
              hint="Checked against the RPC endpoint's eth_chainId."
            />
            <TextField label="RPC URL" name="rpcUrl" type="url" required />
            <TextField
              label="Confirmations"
              name="confirmations"
              type="number"
              min={1}
              max={1000}
              defaultValue="1"
            />
            <TextField
              label="Explorer transaction URL"
              name="explorerTxUrl"
              hint="With {hash} where the transaction hash goes."
            />
          </ActionForm>
          <ActionForm
            heading="Add an asset on a chain"
            failure="The asset was not created"
            submit="Create chain asset"
            resetOnSuccess
            onSubmit={createAsset}
          >
            <TextField label="Network id" name="networkId" required />
            <TextField label="Asset symbol" name="symbol" required maxLength={16} />
            <TextField label="Asset name" name="name" required maxLength={200} />
            <TextField
              label="Token contract address"
              name="tokenAddress"
              pattern="0x[0-9a-fA-F]{40}"
              hint="Empty: the network's native coin. A token's decimals are read from the contract."
            />
          </ActionForm>
          {created && (
            <p role="status">
              Created {created}. It is listed under Reward assets; create budgets on it there.
            </p>
          )}
        </>
      )}
      <h2>Reconciliation</h2>
      <p className="muted">
        Each reward wallet's transfers on chain against the payouts confirmed in the database.
      </p>
      <button type="button" onClick={() => void reconcile()}>
        Reconcile now
      </button>
      <ErrorNotice error={reconcileError} title="Not reconciled" />
      {report && (
        <DataTable
          caption="Reconciliation"
          columns={[
            'Wallet',
            'Budget',
            { label: 'Confirmed payouts', numeric: true },
            { label: 'Transfers on chain', numeric: true },
            'Differences',
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
                  ? 'none'
                  : r.differences.map((d) => `${d.kind}: ${d.detail}`).join('; ')}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </>
  );
}
