// `npm run migrate`: applies pending migrations to the configured database and exits.
import { loadConfig } from '../config.ts';
import { openMigratedDatabase } from './open.ts';

const config = loadConfig();
const { database, applied } = await openMigratedDatabase(config);
await database.close();
console.log(applied.length === 0 ? 'database is up to date' : `applied: ${applied.join(', ')}`);
