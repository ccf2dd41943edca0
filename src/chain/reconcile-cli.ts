// `npm run reconcile`: prints each reward wallet's differences between its transfers on chain and
// its CONFIRMED payouts. Exit codes: 0 no difference, 1 differences found, 2 a bad configuration or
// the embedded database (below), 3 a network did not answer (the others were reconciled), 4 any
// other failure (one line, no stack trace).
import { loadConfigOrExit } from '../config.ts';
import { openMigratedDatabase } from '../db/open.ts';
import { reconcileWallets } from './reconcile.ts';

const config = loadConfigOrExit();
if (config.databaseUrl === undefined) {
  // The embedded database belongs to the service's process: a second process opening its files
  // could corrupt them. Ask the running service instead.
  console.error(
    'reconcile: the embedded database (no DATABASE_URL) is only opened by the service; ask it: GET /admin/v1/reward-wallets/reconcile',
  );
  process.exit(2);
}
try {
  const { database } = await openMigratedDatabase(config);
  try {
    const report = await reconcileWallets(database.db);
    let unreachable = false;
    let differences = false;
    for (const wallet of report) {
      console.log(
        `${wallet.address} (budget ${wallet.budgetId}): ${wallet.confirmedPayouts} confirmed payouts, ${wallet.transfersOnChain} transfers on chain, ${wallet.differences.length} differences`,
      );
      for (const difference of wallet.differences) {
        console.log(`  ${difference.kind} ${difference.txHash ?? ''} ${difference.detail}`);
        if (difference.kind === 'NETWORK_UNREACHABLE') unreachable = true;
        else differences = true;
      }
    }
    process.exitCode = differences ? 1 : unreachable ? 3 : 0;
  } finally {
    await database.close();
  }
} catch (error) {
  console.error(`reconcile failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
  process.exitCode = 4;
}
