/**
 * The launcher of `npm start` and `npm run cluster`: starts Temporal (the entry point says how), creates and
 * migrates the database, creates a default account on the very first start, then runs the API and the workers
 * (automation runs; conversation turns) as child processes. A child that dies is restarted with backoff while the
 * others keep serving (launcher/supervisor.ts). Ctrl-C stops all of it.
 */
import { createConnection } from 'node:net';
import { ConfigError, loadConfig, type Config } from '../lib/config.js';
import { createLogger } from '../lib/logger.js';
import { projectRoot } from './temporal-cli.js';
import { ensureDatabase } from '../db/database.js';
import { initORM, migrate } from '../db/orm.js';
import { bootstrapAccount, countAccounts, type BootstrapResult } from '../db/accounts/accounts.service.js';
import { setUserPassword } from '../db/accounts/passwords.service.js';
import { generatePassword } from '../lib/passwords.js';
import { Supervisor, waitFor } from './supervisor.js';
import { nodeArgs } from './node-args.js';

const started = performance.now();
const elapsed = () => `${((performance.now() - started) / 1000).toFixed(1)} s`;

/** What a Temporal starter gets: the configuration, the supervisor of child processes, and the launcher's log. */
export interface Launch {
  config: Config;
  supervisor: Supervisor;
  /** Logs a step of the start with the time since the launcher started. */
  step: (message: string) => void;
}

export interface LaunchOptions {
  /** Starts Temporal, or checks the one configured; resolves once its namespace answers. */
  startTemporal: (launch: Launch) => Promise<void>;
  /** Worker processes serving automation runs (default 1); one more serves conversation turns. */
  runsWorkers?: number;
  /** The data folder's key file the settings key came from (npm start); printed with the advice to back it up. */
  settingsKeyFile?: string | null;
}

export function portAnswers(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** The default account made on the very first start, and the password its user signs in to the console with. */
type FirstStart = BootstrapResult & { password: string };

async function prepareDatabase(config: Config, step: Launch['step']): Promise<FirstStart | null> {
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
    const password = generatePassword();
    // One transaction: a start that fails here makes no account, so the next start makes it and prints all again.
    return await orm.em.fork().transactional(async (tx) => {
      const created = await bootstrapAccount(tx, 'Default', process.env.DEFAULT_ADMIN_EMAIL || 'admin@localhost');
      await setUserPassword(tx, created.user.id, password);
      return { ...created, password };
    });
  } finally {
    await orm.close();
  }
}

/** What calls to users' URLs may reach, in words (lib/outbound/address-policy.ts). */
export function outboundSummary({ outbound }: Config): string {
  const allowed = outbound.allowHosts.map((entry) => entry.text).join(', ');
  if (outbound.allowPrivate) return 'private addresses allowed (OUTBOUND_ALLOW_PRIVATE=true); link-local and metadata refused';
  return allowed
    ? `private addresses refused except ${allowed} (OUTBOUND_ALLOW_HOSTS); link-local and metadata refused`
    : 'private, link-local and metadata addresses refused (OUTBOUND_ALLOW_PRIVATE, OUTBOUND_ALLOW_HOSTS allow private ones)';
}

/** The metrics port `by` after `port`, of another worker; `0` (metrics off) stays off. */
const beside = (port: string, by: number) => (Number(port) ? String(Number(port) + by) : '0');

/** Where stored secrets' key comes from, in words. */
function settingsKeySummary(config: Config, keyFile: string | null | undefined): string {
  if (keyFile) return `${keyFile} (seals stored secrets: back it up with the database; without it they must be entered again)`;
  return config.settingsKey
    ? 'SETTINGS_ENCRYPTION_KEY (seals stored secrets)'
    : 'none: set SETTINGS_ENCRYPTION_KEY for WhatsApp, Messenger, Instagram and identified widget visitors';
}

function printSummary(config: Config, firstStart: FirstStart | null, keyFile: string | null | undefined): void {
  const base = `${config.publicBaseUrl}/public/v1`;
  const workerMetricsPort = Number(process.env.WORKER_METRICS_PORT || 9464);
  const lines = [
    '',
    'agentry is running',
    `  API base URL   ${base}`,
    `  API reference  ${config.publicBaseUrl}/docs`,
    `  Console        ${config.publicBaseUrl}/console`,
    `  Temporal UI    ${config.temporal.uiUrl}/namespaces/${config.temporal.namespace}/workflows`,
    `  Temporal       ${config.temporal.address} (namespace ${config.temporal.namespace}, task queue ${config.temporal.taskQueue})`,
    `  Health         ${config.publicBaseUrl}/healthz?worker=true`,
    `  Outbound calls ${outboundSummary(config)}`,
    `  Settings key   ${settingsKeySummary(config, keyFile)}`,
    workerMetricsPort
      ? `  Metrics        ${config.publicBaseUrl}/metrics (API), http://127.0.0.1:${workerMetricsPort}/metrics (runs worker), http://127.0.0.1:${workerMetricsPort + 2}/metrics (turns worker)`
      : `  Metrics        ${config.publicBaseUrl}/metrics (API); the workers' are off (WORKER_METRICS_PORT=0)`,
  ];
  if (firstStart) {
    lines.push(
      '',
      `First start: created the account "${firstStart.account.name}" (id ${firstStart.account.id}) with user ${firstStart.user.email}.`,
      'These keys and the password are shown once and stored only as hashes; keep them now:',
      `  USER key     ${firstStart.userKey}`,
      `  GENERAL key  ${firstStart.generalKey}`,
      `  Password     ${firstStart.password}  (sign in to ${config.publicBaseUrl}/console as ${firstStart.user.email})`,
      `Try: curl -H "Authorization: Bearer ${firstStart.userKey}" ${base}/me`,
      `A new password any time: npm run --silent admin -- set-password --email ${firstStart.user.email}`,
    );
  }
  lines.push('', `Ready in ${elapsed()}. Press Ctrl-C to stop.`, '');
  console.log(lines.join('\n'));
}

/** Runs the platform until Ctrl-C; resolves with the process's exit code. */
export async function launch(options: LaunchOptions): Promise<number> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    console.error(`agentry could not start: ${(error as Error).message}`);
    return 1;
  }
  const logger = createLogger('launcher', { format: config.logFormat, level: config.logLevel.toLowerCase() });
  const step = (message: string) => logger.info(`${message} (${elapsed()})`);
  const supervisor = new Supervisor(projectRoot, { error: (message) => logger.error(message), info: (message) => logger.info(message) });
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
    const [, firstStart] = await Promise.all([options.startTemporal({ config, supervisor, step }), prepareDatabase(config, step)]);
    const node = (entry: string) => ({ command: process.execPath, args: nodeArgs(entry) });
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
    const runsWorkers = options.runsWorkers ?? 1;
    for (let i = 0; i < runsWorkers; i += 1) {
      // Each runs worker has metrics ports of its own: the first as configured, the next ones 10 further each.
      const own = i === 0 ? metrics : { WORKER_METRICS_PORT: beside(metrics.WORKER_METRICS_PORT, 10 * i), TEMPORAL_SDK_METRICS_PORT: '0' };
      const name = i === 0 ? 'worker' : `worker-${i + 1}`;
      supervisor.start({ name, ...node('worker/main.ts'), env: { ...process.env, ...logs, ...own, ...runsWorker } });
    }
    const turnsMetrics = { WORKER_METRICS_PORT: beside(metrics.WORKER_METRICS_PORT, 2), TEMPORAL_SDK_METRICS_PORT: '0' };
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
    printSummary(config, firstStart, options.settingsKeyFile);
  } catch (error) {
    logger.error({ err: error }, `agentry could not start: ${(error as Error).message}`);
    return supervisor.stop(1);
  }
  return supervisor.done;
}
