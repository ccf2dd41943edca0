// Reward assets: fungible tokens with a symbol and decimals. Decimals are set once; an asset
// without them cannot back a reward (1402). Tokens paid on a chain are added on the chain page (a
// network, then its token), which this page leads to; each row says whether its asset is on a chain,
// which network, and its contract (shortened, copyable, linked to the explorer when there is one).
import { SectionTitle } from '../components/PageHeader.tsx';
import { TextField, useLoad } from '../../shared/ui.tsx';
import { Link } from '../../shared/router.ts';
import { ActionForm } from '../components/ActionForm.tsx';
import { DataTable } from '../../shared/data-table.tsx';
import { HexValue } from '../../shared/values.tsx';
import { LoadedList } from '../components/LoadedList.tsx';
import { field } from '../forms.ts';
import { useConsoleText } from '../i18n.ts';
import { useSession } from '../session.tsx';
import type { Asset } from '../types.ts';

function SetDecimals({ asset, onSaved }: { asset: Asset; onSaved: () => void }) {
  const session = useSession();
  const { t } = useConsoleText();
  const save = async (form: FormData) => {
    await session.api.patch('/admin/v1/reward-assets/{id}', {
      path: { id: asset.id },
      body: { decimals: Number(field(form, 'decimals')) },
    });
    onSaved();
  };
  return (
    <ActionForm
      label={t('assetsPage.setDecimalsOf', { symbol: asset.symbol })}
      className="inline-form"
      failure={t('assetsPage.decimalsNotSet')}
      submit={t('assetsPage.setDecimals')}
      onSubmit={save}
    >
      <TextField
        label={t('assetsPage.decimalsOf', { symbol: asset.symbol })}
        name="decimals"
        type="number"
        min={0}
        max={36}
        step={1}
        required
        hint={t('assetsPage.decimalsOnce')}
      />
    </ActionForm>
  );
}

function ChainOfAsset({ chain }: { chain: Asset['chain'] }) {
  const { t } = useConsoleText();
  if (!chain) return <span className="badge muted">{t('assetsPage.ledgerOnly')}</span>;
  return (
    <span className="asset-chain">
      <span className="badge info" title={t('assetsPage.chainId', { id: chain.chainId })}>
        {t('assetsPage.onChain', { network: chain.networkName })}
      </span>{' '}
      {chain.tokenAddress ? (
        <HexValue
          value={chain.tokenAddress}
          href={chain.explorerUrl}
          name={t('assetsPage.contract')}
          testId="asset-contract"
        />
      ) : (
        <span className="muted">{t('assetsPage.nativeCoin')}</span>
      )}
    </span>
  );
}

export function AssetsPage() {
  const session = useSession();
  const assets = useLoad((signal) => session.api.get('/admin/v1/reward-assets', { signal }), []);
  const { t, formatDateTime } = useConsoleText();
  const create = async (form: FormData) => {
    const decimals = field(form, 'decimals');
    await session.api.post('/admin/v1/reward-assets', {
      body: {
        symbol: field(form, 'symbol'),
        name: field(form, 'name'),
        ...(decimals !== '' && { decimals: Number(decimals) }),
      },
    });
    assets.reload();
  };
  return (
    <>
      <SectionTitle section="assets" />
      <p className="muted" data-testid="assets-on-chain">
        {t('assetsPage.onChainBefore')}
        <Link to="/console/chain">{t('assetsPage.onChainLink')}</Link>
        {t('assetsPage.onChainAfter')}
      </p>
      <LoadedList state={assets} label={t('assetsPage.list')} empty={t('assetsPage.none')}>
        {(items) => (
          <DataTable
            caption={t('assetsPage.caption')}
            columns={[
              t('assetsPage.symbol'),
              t('assetsPage.name'),
              t('assetsPage.chain'),
              { label: t('assetsPage.decimals'), numeric: true },
              t('assetsPage.created'),
            ]}
          >
            {items.map((a) => (
              <tr key={a.id} data-testid="asset-row" data-symbol={a.symbol}>
                <td>
                  <strong>{a.symbol}</strong>
                  <br />
                  <code className="muted">{a.id}</code>
                </td>
                <td>{a.name}</td>
                <td>
                  <ChainOfAsset chain={a.chain} />
                </td>
                <td className="number">
                  {a.decimals ??
                    (session.canWrite ? (
                      <SetDecimals asset={a} onSaved={assets.reload} />
                    ) : (
                      <span className="badge danger">{t('assetsPage.notSet')}</span>
                    ))}
                </td>
                <td>{formatDateTime(a.createdAt)}</td>
              </tr>
            ))}
          </DataTable>
        )}
      </LoadedList>
      {session.canWrite && (
        <ActionForm
          heading={t('assetsPage.create')}
          failure={t('assetsPage.notCreated')}
          submit={t('assetsPage.submit')}
          resetOnSuccess
          onSubmit={create}
        >
          <TextField
            label={t('assetsPage.symbol')}
            name="symbol"
            required
            maxLength={16}
            hint={t('assetsPage.symbolHint')}
          />
          <TextField label={t('assetsPage.name')} name="name" required maxLength={200} />
          <TextField
            label={t('assetsPage.decimals')}
            name="decimals"
            type="number"
            min={0}
            max={36}
            step={1}
            hint={t('assetsPage.decimalsHint')}
          />
        </ActionForm>
      )}
    </>
  );
}
