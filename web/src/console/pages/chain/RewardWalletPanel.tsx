// A budget's reward wallet on its chain: address, token and gas balances, what it still owes and a
// warning when it cannot cover that; create (or import) it, and fund it from the dev faucet.
import { ApiError } from '../../../shared/api.ts';
import { LoadState, TextField, useLoad } from '../../../shared/ui.tsx';
import { ActionForm } from '../../components/ActionForm.tsx';
import { Facts } from '../../components/PageHeader.tsx';
import { field } from '../../forms.ts';
import { useConsoleText } from '../../i18n.ts';
import { useSession } from '../../session.tsx';

/** The network `npm start` registers for its development chain (src/chain/dev-network.ts). */
const DEV_NETWORK_ID = 'net_devchain';

export function RewardWalletPanel({ budgetId }: { budgetId: string }) {
  const session = useSession();
  const { t } = useConsoleText();
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
  return (
    <section aria-labelledby="reward-wallet-heading">
      <h2 id="reward-wallet-heading">{t('chainPage.rewardWallet')}</h2>
      <LoadState state={wallet} label={t('chainPage.rewardWalletLoading')}>
        {(w) =>
          w ? (
            <>
              <Facts
                facts={[
                  [t('chainPage.address'), <code data-testid="reward-wallet-address">{w.address}</code>],
                  [t('chainPage.network'), <code>{w.networkId}</code>],
                  [
                    t('chainPage.tokensOnChain'),
                    w.tokenBalance === null ? t('chainPage.unknown') : `${w.tokenBalance} ${w.symbol}`,
                  ],
                  [t('chainPage.gasWei'), w.gasBalanceWei ?? t('chainPage.unknown')],
                  [t('chainPage.stillOwes'), `${w.owed} ${w.symbol}`],
                  [
                    t('chainPage.key'),
                    w.keyOrigin === 'CREATED' ? t('chainPage.keyCreated') : t('chainPage.keyImported'),
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
                  heading={t('chainPage.fund')}
                  failure={t('chainPage.notFunded')}
                  submit={t('chainPage.fundSubmit')}
                  onSubmit={fund}
                >
                  <TextField
                    label={t('chainPage.mint', { symbol: w.symbol })}
                    name="amount"
                    required
                    defaultValue="1000"
                    inputMode="decimal"
                    pattern="[0-9]+(\.[0-9]+)?"
                    hint={t('chainPage.mintHint')}
                  />
                </ActionForm>
              )}
            </>
          ) : (
            <>
              <p className="muted">{t('chainPage.noWallet')}</p>
              {session.canWrite && (
                <ActionForm
                  heading={t('chainPage.createWallet')}
                  failure={t('chainPage.walletNotCreated')}
                  submit={t('chainPage.createWalletSubmit')}
                  onSubmit={create}
                >
                  <TextField
                    label={t('chainPage.privateKey')}
                    name="privateKey"
                    type="password"
                    autoComplete="off"
                    hint={t('chainPage.privateKeyHint')}
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
