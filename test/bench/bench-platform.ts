/**
 * What the end-to-end benchmarks run on: the embedded Temporal dev server as `npm start` runs it (agentry's search
 * attributes and dynamic config, its store in a SQLite file with the same pragmas) or, with TEMPORAL=cluster, the
 * Temporal cluster of `npm run cluster` (separate server processes on PostgreSQL, on ports and databases of its
 * own); a fresh migrated database and an account; `close` takes it all down again.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import type { Knex } from '@mikro-orm/postgresql';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { dropDatabase, ensureDatabase } from '../../db/database.js';
import { initORM, migrate } from '../../db/orm.js';
import { bootstrapAccount } from '../../db/accounts/accounts.service.js';
import { SEARCH_ATTRIBUTES } from '../../lib/search-attributes.js';
import { connectTemporal } from '../../integrations/temporal/client.js';
import { startTestCluster } from '../setup/cluster.js';
import { DEV_SERVER_DYNAMIC_CONFIG, DEV_SERVER_SQLITE_PRAGMAS, temporalCliPath } from '../../launcher/temporal-cli.js';

/** A Temporal server for a benchmark: a client of it, the bytes of its store, and how to stop it. */
interface BenchTemporal {
  /** Which Temporal server it is, as the benchmarks print it. */
  kind: string;
  env: { client: Client; address: string };
  storeBytes(): Promise<number>;
  close(): Promise<void>;
}

async function devServer(): Promise<BenchTemporal> {
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
  return {
    kind: 'Temporal dev server (SQLite)',
    env,
    // The SQLite file and its write-ahead log.
    storeBytes: async () => readdirSync(store).reduce((sum, name) => sum + statSync(join(store, name)).size, 0),
    async close() {
      await env.teardown();
      rmSync(store, { recursive: true, force: true });
    },
  };
}

async function cluster(databaseUrl: string, knex: Knex): Promise<BenchTemporal> {
  const started = await startTestCluster(databaseUrl);
  const client = await connectTemporal({ address: started.address, namespace: 'default' });
  return {
    kind: 'Temporal cluster (npm run cluster topology, PostgreSQL)',
    env: { client, address: started.address },
    // The two Temporal databases.
    storeBytes: async () =>
      (
        await knex.raw(`select sum(pg_database_size(datname))::bigint as n from pg_database where datname = any(?)`, [
          Object.values(started.topology.databases),
        ])
      ).rows[0].n as number,
    async close() {
      await client.connection.close();
      await started.stop();
    },
  };
}

export async function benchPlatform() {
  const dbServer = new URL(process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres');
  dbServer.pathname = `/agentry_bench_${randomBytes(3).toString('hex')}`;
  const databaseUrl = dbServer.toString();
  await ensureDatabase(databaseUrl);
  const orm = await initORM({ databaseUrl });
  await migrate(orm);
  const temporal = process.env.TEMPORAL === 'cluster' ? await cluster(databaseUrl, orm.em.getKnex()) : await devServer();
  const { env } = temporal;
  const account = await bootstrapAccount(orm.em.fork(), 'Bench', 'bench@example.test');
  const queue = `bench-${randomBytes(3).toString('hex')}`;
  return {
    env,
    orm,
    databaseUrl,
    account,
    queue,
    /** Environment of the API and worker processes. */
    processEnv: {
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: env.address,
      LOG_LEVEL: 'ERROR',
      TEMPORAL_TASK_QUEUE: queue,
      // The benchmarks' services listen on 127.0.0.1, which the outbound address policy refuses unless allowed.
      OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
    },
    /** Which Temporal server the benchmark runs on. */
    temporalKind: temporal.kind,
    /** Bytes of the Temporal store. */
    storeBytes: temporal.storeBytes,
    async close() {
      await orm.close();
      await temporal.close();
      await dropDatabase(databaseUrl);
    },
  };
}
