/** `npm run migrate`: creates the database when missing and applies pending migrations (also done by `npm start`). */
import { loadConfig } from '../lib/config.js';
import { ensureDatabase } from '../db/database.js';
import { initORM, migrate } from '../db/orm.js';

const config = loadConfig();
if (await ensureDatabase(config.databaseUrl)) console.log('created the database');
const orm = await initORM({ databaseUrl: config.databaseUrl, poolMax: 2 });
try {
  const applied = await migrate(orm);
  console.log(applied.length ? `applied: ${applied.join(', ')}` : 'schema is up to date');
} finally {
  await orm.close();
}
