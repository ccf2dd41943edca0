// A budget's reward wallet on its chain: address, token and gas balances, what it still owes and a
// warning when it cannot cover that; create (or import) it, and fund it from the dev faucet. First of
// all its alerts: halted by a deep reorg (with the recover action, OWNER), or its dev chain reset.
import { ApiError } from '../../../shared/api.ts';
import { formatUnits } from '../../../shared/format.ts';
import { LoadState, TextField, useLoad } from '../../../shared/ui.tsx';
import { ActionForm } from '../../components/ActionForm.tsx';
import { Facts } from '../../components/PageHeader.tsx';
import { field } from '../../forms.ts';
import { useConsoleText } from '../../i18n.ts';
import { useSession } from '../../session.tsx';

/** The network `npm start` registers for its development chain (src/chain/dev-network.ts). */
const DEV_NETWORK_ID = 'net_devchain';

/** Wei as whole coins of the network's native currency (18 decimals), exact: "1500000000000000000" -> "1.5". */
export function weiAsCoins(wei: string): string {
  if (!/^\d+$/.test(wei)) return wei;
  const digits = wei.padStart(19, '0');
  const fraction = digits.slice(-18).replace(/0+$/, '');
  return formatUnits(fraction ? `${digits.slice(0, -18)}.${fraction}` : digits.slice(0, -18), 0);
}

export function RewardWalletPanel({ budgetId }: { budgetId: string }) {
  const session = useSession();
  const { t, formatDateTime } = useConsoleText();
  const owner = session.identity.role === 'OWNER';
  const alerts = useLoad(
    (signal) =>
      session.api
        .get('/admin/v1/budgets/{id}/reward-wallet/alerts', { path: { id: budgetId }, signal })
        .catch((error: unknown) => {
          if (error instanceof ApiError && error.status === 404) return null;
          throw error;
        }),
    [budgetId],
  );
  const wallet = useLoad(
    (signal) =>
      session.api
        .get('/admin/v1/budgets/{id}/reward-wallet', { path: { id: budgetId }, signal })
        .catch((error: unknown) => {
          // No wallet yet (3606), or a budget whose asset is not on a chain: nothing to show.
          if (error instanceof ApiError && error.status === 404) return null;
          throw error;
        }),
    [budgetId],
  );
  const create = async (form: FormData) => {
    const privateKey = field(form, 'privateKey');
    await session.api.post('/admin/v1/budgets/{id}/reward-wallet', {
      path: { id: budgetId },
      body: privateKey === '' ? {} : { privateKey },
    });
    wallet.reload();
  };
  const fund = async (form: FormData) => {
    await session.api.post('/admin/v1/budgets/{id}/reward-wallet/dev-faucet', {
      path: { id: budgetId },
      body: { amount: field(form, 'amount') },
    });
    wallet.reload();
  };
  const recover = async () => {
    const walletId = alerts.data?.walletId;
    if (!walletId) return;
    await session.api.post('/admin/v1/reward-wallets/{id}/recover', { path: { id: walletId } });
    alerts.reload();
    wallet.reload();
  };
  const alert = alerts.data;
  return (
    <section aria-labelledby="reward-wallet-heading">
      <h2 id="reward-wallet-heading">{t('budgetPage.wallet.heading')}</h2>
      {alert?.halted && (
        <div className="notice error" role="alert" data-testid="reward-wallet-halted">
          <p>
            <strong>{t('budgetPage.wallet.halted', { at: formatDateTime(alert.halted.at) })}</strong>
          </p>
          <p>{t('budgetPage.wallet.haltedExplained')}</p>
          <p>
            <code>{alert.halted.reason}</code>
          </p>
          {owner ? (
            <ActionForm
              label={t('budgetPage.wallet.recover')}
              failure={t('budgetPage.wallet.notRecovered')}
              submit={t('budgetPage.wallet.recoverSubmit')}
              onSubmit={recover}
            />
          ) : (
            <p className="muted">{t('budgetPage.wallet.recoverOwnerOnly')}</p>
          )}
        </div>
      )}
      {alert?.devChainResetAt && (
        <p className="notice warn" role="status" data-testid="reward-wallet-dev-reset">
          {t('budgetPage.wallet.devChainReset', { at: formatDateTime(alert.devChainResetAt) })}
        </p>
      )}
      <LoadState state={wallet} label={t('budgetPage.wallet.loading')}>
        {(w) =>
          w ? (
            <>
              <Facts
                facts={[
                  [
                    t('budgetPage.wallet.address'),
                    <code data-testid="reward-wallet-address">{w.address}</code>,
                  ],
                  [t('budgetPage.wallet.network'), <code>{w.networkId}</code>],
                  [
                    t('budgetPage.wallet.tokens'),
                    w.tokenBalance === null
                      ? t('budgetPage.wallet.unknown')
                      : `${w.tokenBalance} ${w.symbol}`,
                  ],
                  [
                    t('budgetPage.wallet.gas'),
                    w.gasBalanceWei === null ? (
                      t('budgetPage.wallet.unknown')
                    ) : (
                      <span title={t('budgetPage.wallet.gasWei', { wei: w.gasBalanceWei })}>
                        {t('budgetPage.wallet.gasCoins', { amount: weiAsCoins(w.gasBalanceWei) })}
                      </span>
                    ),
                  ],
                  [t('budgetPage.wallet.owes'), `${w.owed} ${w.symbol}`],
                  [
                    t('budgetPage.wallet.key'),
                    w.keyOrigin === 'CREATED'
                      ? t('budgetPage.wallet.created')
                      : t('budgetPage.wallet.imported'),
                  ],
                ]}
              />
              {w.warning && (
                <p className="notice warn" role="status" data-testid="reward-wallet-warning">
                  {w.warning}
                </p>
              )}
              {session.canWrite && w.networkId === DEV_NETWORK_ID && (
                <ActionForm
                  heading={t('budgetPage.wallet.fund')}
                  failure={t('budgetPage.wallet.notFunded')}
                  submit={t('budgetPage.wallet.fundSubmit')}
                  confirmation={t('budgetPage.wallet.funded')}
                  resetOnSuccess
                  onSubmit={fund}
                >
                  <TextField
                    label={t('budgetPage.wallet.tokensToMint', { symbol: w.symbol })}
                    name="amount"
                    required
                    defaultValue="1000"
                    inputMode="decimal"
                    pattern="[0-9]+(\.[0-9]+)?"
                    hint={t('budgetPage.wallet.mintHint')}
                  />
                </ActionForm>
              )}
            </>
          ) : (
            <>
              <p className="muted">{t('budgetPage.wallet.none')}</p>
              {session.canWrite && (
                <ActionForm
                  heading={t('budgetPage.wallet.create')}
                  failure={t('budgetPage.wallet.notCreated')}
                  submit={t('budgetPage.wallet.createSubmit')}
                  onSubmit={create}
                >
                  <TextField
                    label={t('budgetPage.wallet.privateKey')}
                    name="privateKey"
                    type="password"
                    autoComplete="off"
                    hint={t('budgetPage.wallet.privateKeyHint')}
                  />
                </ActionForm>
              )}
            </>
          )
        }
      </LoadState>
    </section>
  );
}
