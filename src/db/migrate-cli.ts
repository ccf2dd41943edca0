// `npm run migrate`: applies pending migrations to the configured database and exits.
import pino from 'pino';
import { loadConfig } from '../config.ts';
import { openMigratedDatabase } from './open.ts';

const config = loadConfig();
// Waiting for a database that is still starting is logged, as in the service.
const { database, applied } = await openMigratedDatabase(config, pino({ level: config.logLevel }));
await database.close();
console.log(applied.length === 0 ? 'database is up to date' : `applied: ${applied.join(', ')}`);
