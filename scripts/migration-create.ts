/** `npm run migration:create`: writes a migration for the difference between the entities and the snapshot. */
import { MikroORM } from '@mikro-orm/postgresql';
import { loadConfig } from '../lib/config.js';
import { ormOptions } from '../db/orm.js';

const config = loadConfig();
const orm = await MikroORM.init(ormOptions({ databaseUrl: config.databaseUrl, snapshot: true }));
try {
  const result = await orm.getMigrator().createMigration('db/migrations', false, process.argv.includes('--initial'));
  console.log(result.fileName ? `created ${result.fileName}; add it to db/migrations/index.ts` : 'no changes');
} finally {
  await orm.close();
}
