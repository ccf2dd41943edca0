// A budget's reward wallet on its chain: address, token and gas balances, what it still owes and a
// warning when it cannot cover that; create (or import) it, and fund it from the dev faucet.
import { ApiError } from '../../../shared/api.ts';
import { LoadState, TextField, useLoad } from '../../../shared/ui.tsx';
import { ActionForm } from '../../components/ActionForm.tsx';
import { Facts } from '../../components/PageHeader.tsx';
import { field } from '../../forms.ts';
import { useSession } from '../../session.tsx';

/** The network `npm start` registers for its development chain (src/chain/dev-network.ts). */
const DEV_NETWORK_ID = 'net_devchain';

export function RewardWalletPanel({ budgetId }: { budgetId: string }) {
  const session = useSession();
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
      <h2 id="reward-wallet-heading">Reward wallet</h2>
      <LoadState state={wallet} label="the reward wallet">
        {(w) =>
          w ? (
            <>
              <Facts
                facts={[
                  ['Address', <code data-testid="reward-wallet-address">{w.address}</code>],
                  ['Network', <code>{w.networkId}</code>],
                  ['Tokens on chain', w.tokenBalance === null ? 'unknown' : `${w.tokenBalance} ${w.symbol}`],
                  ['Gas (wei)', w.gasBalanceWei ?? 'unknown'],
                  ['Still owes', `${w.owed} ${w.symbol}`],
                  ['Key', w.keyOrigin === 'CREATED' ? 'created by the service' : 'imported'],
                ]}
              />
              {w.warning && (
                <p className="notice warn" role="status" data-testid="reward-wallet-warning">
                  {w.warning}
                </p>
              )}
              {session.canWrite && w.networkId === DEV_NETWORK_ID && (
                <ActionForm
                  heading="Fund from the dev faucet"
                  failure="Not funded"
                  submit="Fund wallet"
                  onSubmit={fund}
                >
                  <TextField
                    label={`Tokens to mint (${w.symbol})`}
                    name="amount"
                    required
                    defaultValue="1000"
                    inputMode="decimal"
                    pattern="[0-9]+(\.[0-9]+)?"
                    hint="Also gives the wallet coins for gas. Development chain only."
                  />
                </ActionForm>
              )}
            </>
          ) : (
            <>
              <p className="muted">
                No reward wallet. A budget of an asset on a chain pays from a wallet of its own.
              </p>
              {session.canWrite && (
                <ActionForm
                  heading="Create the reward wallet"
                  failure="No wallet created"
                  submit="Create wallet"
                  onSubmit={create}
                >
                  <TextField
                    label="Private key to import (optional)"
                    name="privateKey"
                    type="password"
                    autoComplete="off"
                    hint="Leave empty to have the service create the key. It is never shown again."
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
