/**
 * What the end-to-end benchmarks run on: the embedded Temporal dev server as `npm start` runs it (agentry's search
 * attributes and dynamic config, its store in a SQLite file with the same pragmas), a fresh migrated database and
 * an account; `close` takes it all down again.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { dropDatabase, ensureDatabase } from '../../db/database.js';
import { initORM, migrate } from '../../db/orm.js';
import { bootstrapAccount } from '../../db/services/accounts.service.js';
import { SEARCH_ATTRIBUTES } from '../../lib/search-attributes.js';
import { DEV_SERVER_DYNAMIC_CONFIG, DEV_SERVER_SQLITE_PRAGMAS, temporalCliPath } from '../../lib/temporal-cli.js';

export async function benchPlatform() {
  const dbServer = new URL(process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres');
  dbServer.pathname = `/agentry_bench_${randomBytes(3).toString('hex')}`;
  const databaseUrl = dbServer.toString();
  const store = mkdtempSync(join(tmpdir(), 'agentry-bench-temporal-'));
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: temporalCliPath() },
      ip: '127.0.0.1',
      searchAttributes: SEARCH_ATTRIBUTES,
      dbFilename: join(store, 'temporal.db'),
      extraArgs: [...DEV_SERVER_DYNAMIC_CONFIG, ...DEV_SERVER_SQLITE_PRAGMAS],
    },
  });
  await ensureDatabase(databaseUrl);
  const orm = await initORM({ databaseUrl });
  await migrate(orm);
  const account = await bootstrapAccount(orm.em.fork(), 'Bench', 'bench@example.test');
  const queue = `bench-${randomBytes(3).toString('hex')}`;
  return {
    env,
    orm,
    databaseUrl,
    account,
    queue,
    /** Environment of the API and worker processes. */
    processEnv: { DATABASE_URL: databaseUrl, TEMPORAL_ADDRESS: env.address, LOG_LEVEL: 'ERROR', TEMPORAL_TASK_QUEUE: queue },
    /** Bytes of the Temporal store (the SQLite file and its write-ahead log). */
    storeBytes: () => readdirSync(store).reduce((sum, name) => sum + statSync(join(store, name)).size, 0),
    async close() {
      await orm.close();
      await env.teardown();
      await dropDatabase(databaseUrl);
      rmSync(store, { recursive: true, force: true });
    },
  };
}
