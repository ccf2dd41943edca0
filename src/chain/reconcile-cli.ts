// `npm run reconcile`: prints each reward wallet's differences between its transfers on chain and
// its CONFIRMED payouts; exits 1 when there is any, 2 on a bad configuration.
import { loadConfigOrExit } from '../config.ts';
import { openMigratedDatabase } from '../db/open.ts';
import { reconcileWallets } from './reconcile.ts';

const config = loadConfigOrExit();
const { database } = await openMigratedDatabase(config);
try {
  const report = await reconcileWallets(database.db);
  for (const wallet of report) {
    console.log(
      `${wallet.address} (budget ${wallet.budgetId}): ${wallet.confirmedPayouts} confirmed payouts, ${wallet.transfersOnChain} transfers on chain, ${wallet.differences.length} differences`,
    );
    for (const difference of wallet.differences)
      console.log(`  ${difference.kind} ${difference.txHash ?? ''} ${difference.detail}`);
  }
  if (report.some((wallet) => wallet.differences.length > 0)) process.exitCode = 1;
} finally {
  await database.close();
}
