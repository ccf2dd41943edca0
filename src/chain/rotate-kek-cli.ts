// `npm run rotate-wallet-kek`: seals every reward-wallet key under WALLET_KEK, opening those sealed
// under an earlier key with WALLET_KEK_PREVIOUS. Prints one JSON line (fingerprints and counts,
// never a key); exits 1 when a key cannot be opened with the keys given, 2 on a bad configuration.
import pino from 'pino';
import { loadConfigOrExit } from '../config.ts';
import { openMigratedDatabaseOrExit } from '../db/open.ts';
import { resolveWalletKek } from './signer.ts';
import { resealWalletKeys } from './wallet-key-rotation.ts';

const config = loadConfigOrExit();
const log = pino({ level: config.logLevel });
const kek = resolveWalletKek(config, (message) => log.warn(message));
const { database } = await openMigratedDatabaseOrExit(config, log);
try {
  const result = await resealWalletKeys(database.db, kek, config.walletKekPrevious);
  log.info(result, 'reward-wallet keys sealed under the current WALLET_KEK');
} catch (err) {
  log.error({ err }, 'rotation stopped; nothing was changed');
  process.exitCode = 1;
} finally {
  await database.close();
}
