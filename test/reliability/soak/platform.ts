/**
 * The soak's platform, in the shape the README tells operators to scale out to: a Temporal cluster of separate
 * server processes on PostgreSQL (`npm run cluster`'s topology), 2 API processes (`npm run api`'s entry point) behind
 * a load balancer (proxy.ts), 2 workers of automation runs and 2 of conversation turns (`npm run worker` with
 * WORKER_QUEUES), each under a supervisor that starts it again when it dies; a fresh migrated database, an account,
 * and a local server playing Meta's Send API. With `ownPostgres`, agentry's and the cluster's databases live on a
 * PostgreSQL server of the soak's own (test/setup/private-postgres.ts), which the fault schedule may restart.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bootstrapAccount, type BootstrapResult } from '../../../db/accounts/accounts.service.js';
import { dropDatabase } from '../../../db/database.js';
import type { Orm } from '../../../db/orm.js';
import { nodeArgs } from '../../../launcher/node-args.js';
import { Supervisor, waitFor } from '../../../launcher/supervisor.js';
import { startTestCluster, type TestCluster } from '../../setup/cluster.js';
import { FakeMetaServer } from '../../setup/fake-meta-server.js';
import { freePorts } from '../../setup/free-port.js';
import { startPrivatePostgres, type PrivatePostgres } from '../../setup/private-postgres.js';
import { migratedDatabase, projectRoot, TEST_SETTINGS_KEY } from '../../setup/harness.js';
import { startProxy, type Proxy } from './proxy.js';

/** The per-key limit the soak configures on every API process, so that the limit check can measure it. */
export const KEY_LIMIT = { perSecond: 20, burst: 40 };

/** The agentry processes the supervisor keeps running, by name. */
export const AGENTRY_PROCESSES = ['api-1', 'api-2', 'runs-1', 'runs-2', 'turns-1', 'turns-2'] as const;
export type AgentryProcess = (typeof AGENTRY_PROCESSES)[number];

export interface SoakPlatform {
  databaseUrl: string;
  /** The soak's own PostgreSQL server, when it has one (else the databases are on the tests' shared server). */
  postgres?: PrivatePostgres;
  orm: Orm;
  cluster: TestCluster;
  /** Supervisor of the agentry processes (the cluster has its own). */
  agentry: Supervisor;
  /** What the agentry supervisor said: starts, crashes, restarts. */
  events: string[];
  proxy: Proxy;
  meta: FakeMetaServer;
  account: BootstrapResult;
  /** The process id of a running agentry or Temporal process (`temporal-frontend`, ...). */
  pid(name: string): number | undefined;
  /** Names of the Temporal server processes (`temporal-history-1`, ...). */
  temporalProcesses: string[];
  /** Resolves once every agentry process is up again (the APIs answer, the workers poll). */
  ready(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** Connections the soak's own server accepts: 6 agentry processes' pools of 10, the Temporal cluster's, and slack. */
const OWN_POSTGRES_CONNECTIONS = 300;

export async function startSoakPlatform({ ownPostgres }: { ownPostgres: boolean }): Promise<SoakPlatform> {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  const close = async () => {
    for (const undo of cleanups.reverse()) await Promise.resolve(undo()).catch((error) => console.error(`[soak] cleanup: ${error}`));
  };
  try {
    const postgres = ownPostgres ? await startPrivatePostgres({ maxConnections: OWN_POSTGRES_CONNECTIONS }) : undefined;
    if (postgres) cleanups.push(() => postgres.destroy());
    const { databaseUrl, orm } = await migratedDatabase(postgres?.url);
    cleanups.push(
      () => dropDatabase(databaseUrl),
      () => orm.close(),
    );
    const cluster = await startTestCluster(databaseUrl);
    cleanups.push(() => cluster.stop());
    const meta = new FakeMetaServer();
    await meta.start();
    cleanups.push(() => meta.stop());
    const apiPorts = await freePorts(2);
    const proxy = await startProxy(apiPorts);
    cleanups.push(() => proxy.close());
    const dir = mkdtempSync(join(tmpdir(), 'agentry-soak-'));
    // SOAK_KEEP_LOGS=1 keeps the processes' logs (and the files folder) for reading after the run.
    if (process.env.SOAK_KEEP_LOGS !== '1') cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    else console.log(`[soak] logs in ${dir}`);
    const events: string[] = [];
    // Restarted quickly, and a process killed again soon is not held back for long: the fault loop kills often.
    const agentry = new Supervisor(
      projectRoot,
      { error: (m) => events.push(`${new Date().toISOString()} ${m}`), info: (m) => events.push(`${new Date().toISOString()} ${m}`) },
      { firstDelayMs: 500, maxDelayMs: 4_000, healthyAfterMs: 10_000 },
    );
    cleanups.push(() => agentry.stop());
    const common = {
      ...process.env,
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: cluster.address,
      TEMPORAL_TASK_QUEUE: `soak-${randomBytes(3).toString('hex')}`,
      SETTINGS_ENCRYPTION_KEY: TEST_SETTINGS_KEY,
      OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
      LOG_FORMAT: 'json',
      LOG_LEVEL: 'INFO',
      AGENTRY_DATA_DIR: dir,
      WORKER_METRICS_PORT: '0',
      TEMPORAL_SDK_METRICS_PORT: '0',
      TRUST_PROXY: '1',
      PUBLIC_BASE_URL: proxy.origin,
      RATE_LIMIT_PER_SECOND: String(KEY_LIMIT.perSecond),
      RATE_LIMIT_BURST: String(KEY_LIMIT.burst),
      // Every widget visitor of the soak comes through the proxy from 127.0.0.1: one address for all of them.
      WIDGET_RATE_LIMIT_PER_SECOND: '50',
      WIDGET_RATE_LIMIT_BURST: '100',
      // Every Meta delivery of the soak opens a conversation, and a conversation stays open for a day: a turns worker's
      // workflow cache fills until its bound, by design. Bounded low, it fills during the warm-up, so that what the
      // memory check sees afterwards is growth past the cache (docs/operations.md, "Worker memory").
      WORKER_WORKFLOW_CACHE: process.env.SOAK_WORKFLOW_CACHE ?? '100',
    };
    const logOf = (name: string) => join(dir, `${name}.log`);
    const start = (name: AgentryProcess, entry: string, env: Record<string, string>) =>
      agentry.start({ name, command: process.execPath, args: nodeArgs(entry), env: { ...common, ...env }, logFile: logOf(name) });
    apiPorts.forEach((port, i) => start(`api-${i + 1}` as AgentryProcess, 'api/server.ts', { PORT: String(port), HOST: '127.0.0.1' }));
    for (const i of [1, 2]) {
      start(`runs-${i}` as AgentryProcess, 'worker/main.ts', { WORKER_QUEUES: 'runs' });
      start(`turns-${i}` as AgentryProcess, 'worker/main.ts', { WORKER_QUEUES: 'turns' });
    }
    // A restarted worker appends to its log (JSON lines with its pid): the running one polls once its line says so.
    const polling = (name: string) => {
      const pid = agentry.pid(name);
      return pid !== undefined && new RegExp(`"pid":${pid},.*polling task queue`).test(readFileSync(logOf(name), 'utf8'));
    };
    const ready = async (timeoutMs = 90_000) => {
      const up = (name: string) =>
        name.startsWith('api')
          ? async () => (await fetch(`http://127.0.0.1:${apiPorts[Number(name.slice(-1)) - 1]}/healthz`)).status < 500
          : async () => polling(name);
      await Promise.all(
        AGENTRY_PROCESSES.map((name) =>
          waitFor(name, timeoutMs, up(name)).catch((error: Error) => {
            const tail = readFileSync(logOf(name), 'utf8').split('\n').slice(-15).join('\n');
            throw new Error(
              `${error.message}; its log ends:\n${tail}\n${events
                .filter((e) => e.includes(name))
                .slice(-5)
                .join('\n')}`,
            );
          }),
        ),
      );
    };
    await ready();
    const account = await bootstrapAccount(orm.em.fork(), 'Soak', 'soak@example.test');
    const temporalProcesses = cluster.topology.processes.map((p) => `temporal-${p.name}`);
    return {
      databaseUrl,
      postgres,
      orm,
      cluster,
      agentry,
      events,
      proxy,
      meta,
      account,
      pid: (name) => (name.startsWith('temporal-') ? cluster.supervisor.pid(name) : agentry.pid(name)),
      temporalProcesses,
      ready,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
