/** The set-up shared by the data-plane benchmarks: a fresh migrated database, an account, and the API in a process. */
import { ensureDatabase } from '../../db/database.js';
import { initORM, migrate } from '../../db/orm.js';
import { bootstrapAccount } from '../../db/accounts/accounts.service.js';
import { benchApi, startProcess } from './bench-processes.js';

export async function startDataBench(databaseUrl: string) {
  await ensureDatabase(databaseUrl);
  const orm = await initORM({ databaseUrl, poolMax: 10 });
  await migrate(orm);
  const account = await bootstrapAccount(orm.em.fork(), 'Bench', 'bench@example.test');
  // The API runs in a process of its own, as in production: the client here does not share its event loop.
  const [, port] = await startProcess('test/bench/api-process.ts', { DATABASE_URL: databaseUrl }, /port (\d+)/);
  return { orm, account, port: port!, api: benchApi(port!, account.userKey) };
}
