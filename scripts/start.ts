/**
 * `npm start`: the whole platform on one machine. Starts the embedded Temporal dev server (unless
 * TEMPORAL_ADDRESS is set), creates and migrates the database, creates a default account on the very first
 * start, then runs the API and two workers (automation runs; conversation turns) as child processes. Ctrl-C stops
 * all of it.
 */
import { mkdirSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { ConfigError, loadConfig, type Config } from '../lib/config.js';
import { createLogger } from '../lib/logger.js';
import { connectTemporal } from '../lib/temporal.js';
import { ensureRunRetention } from '../lib/run-retention.js';
import { devServerArgs, projectRoot, temporalCliPath } from '../lib/temporal-cli.js';
import { ensureDatabase } from '../db/database.js';
import { initORM, migrate } from '../db/orm.js';
import { bootstrapAccount, countAccounts, type BootstrapResult } from '../db/services/accounts.service.js';
import { Supervisor, waitFor } from './supervisor.js';

const started = performance.now();
const elapsed = () => `${((performance.now() - started) / 1000).toFixed(1)} s`;
const config = loadConfig();
const logger = createLogger('launcher', { format: config.logFormat, level: config.logLevel.toLowerCase() });
const step = (message: string) => logger.info(`${message} (${elapsed()})`);

function portAnswers(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function startTemporal(config: Config, supervisor: Supervisor): Promise<void> {
  const [host, portText] = config.temporal.address.split(':') as [string, string];
  const port = Number(portText);
  if (!config.temporal.embedded) {
    step(`using the Temporal cluster at ${config.temporal.address}`);
  } else if (await portAnswers(host, port)) {
    step(`something already listens on ${config.temporal.address}; using it as the Temporal server`);
  } else {
    const dataDir = join(projectRoot, config.dataDir);
    mkdirSync(dataDir, { recursive: true });
    const uiPort = Number(new URL(config.temporal.uiUrl).port);
    supervisor.start({
      name: 'temporal',
      command: temporalCliPath(),
      args: devServerArgs({ ip: host, port, uiPort, namespace: config.temporal.namespace, dbFilename: join(dataDir, 'temporal.db') }),
      logFile: join(dataDir, 'temporal.log'),
    });
    step(`starting the Temporal dev server on ${config.temporal.address} (state in ${config.dataDir}/temporal.db)`);
  }
  const client = await connectTemporal(config.temporal, 30_000);
  try {
    await waitFor('Temporal', 60_000, async () => {
      await client.workflowService.describeNamespace({ namespace: config.temporal.namespace });
      return true;
    });
    // The embedded server keeps run history (run logs) for RUN_HISTORY_RETENTION_DAYS; a cluster's operators set it.
    const days = config.runHistoryRetentionDays;
    if (config.temporal.embedded && (await ensureRunRetention(client, config.temporal.namespace, days)))
      step(`run history is kept ${days} days (RUN_HISTORY_RETENTION_DAYS)`);
  } finally {
    await client.connection.close();
  }
  step('Temporal is ready');
}

async function prepareDatabase(config: Config): Promise<BootstrapResult | null> {
  try {
    if (await ensureDatabase(config.databaseUrl)) step('created the database');
  } catch (error) {
    const hint = config.databaseIsDefault ? 'start PostgreSQL on 127.0.0.1:5432 or set DATABASE_URL' : 'check DATABASE_URL';
    throw new ConfigError(`PostgreSQL does not answer (${(error as Error).message}): ${hint}`);
  }
  const orm = await initORM({ databaseUrl: config.databaseUrl, poolMax: 2 });
  try {
    const applied = await migrate(orm);
    step(applied.length ? `applied migrations: ${applied.join(', ')}` : 'database schema is up to date');
    if ((await countAccounts(orm.em.fork())) > 0) return null;
    return await bootstrapAccount(orm.em.fork(), 'Default', process.env.DEFAULT_ADMIN_EMAIL || 'admin@localhost');
  } finally {
    await orm.close();
  }
}

function printSummary(config: Config, firstStart: BootstrapResult | null): void {
  const base = `${config.publicBaseUrl}/public/v1`;
  const workerMetricsPort = Number(process.env.WORKER_METRICS_PORT || 9464);
  const lines = [
    '',
    'agentry is running',
    `  API base URL   ${base}`,
    `  API reference  ${config.publicBaseUrl}/docs`,
    `  Temporal UI    ${config.temporal.uiUrl}/namespaces/${config.temporal.namespace}/workflows`,
    `  Temporal       ${config.temporal.address} (namespace ${config.temporal.namespace}, task queue ${config.temporal.taskQueue})`,
    `  Health         ${config.publicBaseUrl}/healthz?worker=true`,
    `  Metrics        ${config.publicBaseUrl}/metrics (API), http://127.0.0.1:${workerMetricsPort}/metrics (runs worker), http://127.0.0.1:${workerMetricsPort + 2}/metrics (turns worker)`,
  ];
  if (firstStart) {
    lines.push(
      '',
      `First start: created the account "${firstStart.account.name}" (id ${firstStart.account.id}) with user ${firstStart.user.email}.`,
      'These keys are shown once and stored only as hashes; keep them now:',
      `  USER key     ${firstStart.userKey}`,
      `  GENERAL key  ${firstStart.generalKey}`,
      `Try: curl -H "Authorization: Bearer ${firstStart.userKey}" ${base}/me`,
    );
  }
  lines.push('', `Ready in ${elapsed()}. Press Ctrl-C to stop.`, '');
  console.log(lines.join('\n'));
}

async function main(): Promise<number> {
  const supervisor = new Supervisor(projectRoot, (message) => logger.error(message));
  const stop = () => {
    console.log('\nstopping...');
    void supervisor.stop(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  process.once('SIGHUP', stop);
  try {
    const apiHost = config.host === '0.0.0.0' ? '127.0.0.1' : config.host;
    if (await portAnswers(apiHost, config.port)) {
      throw new ConfigError(`port ${config.port} is already in use (another agentry running?); stop it or set PORT`);
    }
    const [, firstStart] = await Promise.all([startTemporal(config, supervisor), prepareDatabase(config)]);
    const node = (entry: string) => ({ command: process.execPath, args: ['--import', 'tsx', entry] });
    // Children write through pipes, not a terminal: readable lines when the launcher itself runs in one.
    const logs = { LOG_FORMAT: config.logFormat };
    const metrics = {
      WORKER_METRICS_PORT: process.env.WORKER_METRICS_PORT || '9464',
      TEMPORAL_SDK_METRICS_PORT: process.env.TEMPORAL_SDK_METRICS_PORT || '9465',
    };
    // Two workers: automation runs, yielding the CPU (nice 10), and conversation turns, so that a backlog of runs
    // leaves turn latency as it is (test/bench/conversation.bench.ts: turn p50 1.34x idle with 5,000 runs queued,
    // against 2.21x with one process serving both).
    const runsWorker = { WORKER_QUEUES: 'runs', WORKER_NICE: process.env.WORKER_NICE || '10' };
    supervisor.start({ name: 'worker', ...node('worker/main.ts'), env: { ...process.env, ...logs, ...metrics, ...runsWorker } });
    const turnsMetrics = { WORKER_METRICS_PORT: String(Number(metrics.WORKER_METRICS_PORT) + 2), TEMPORAL_SDK_METRICS_PORT: '0' };
    supervisor.start({
      name: 'turns-worker',
      ...node('worker/main.ts'),
      env: { ...process.env, ...logs, ...turnsMetrics, WORKER_QUEUES: 'turns', WORKER_NICE: '0' },
    });
    supervisor.start({ name: 'api', ...node('api/server.ts'), env: { ...process.env, ...logs } });
    await waitFor('the API and the workers', 120_000, async () => {
      const res = await fetch(`http://${apiHost}:${config.port}/healthz?worker=true`);
      return res.ok;
    });
    printSummary(config, firstStart);
  } catch (error) {
    logger.error({ err: error }, `agentry could not start: ${(error as Error).message}`);
    return supervisor.stop(1);
  }
  return supervisor.done;
}

process.exitCode = await main();
