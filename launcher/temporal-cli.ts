/** Where the project-local Temporal CLI lives (built by scripts/ensure-tools.mjs) and how the dev server is started. */
import { join } from 'node:path';
import { devServerSearchAttributeArgs } from '../lib/search-attributes.js';

export const projectRoot = join(import.meta.dirname, '..');

export function temporalCliPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.TEMPORAL_CLI || join(projectRoot, '.tools', 'bin', 'temporal');
}

export interface DevServerOptions {
  ip: string;
  port: number;
  uiPort: number;
  namespace: string;
  dbFilename: string;
}

/**
 * Dynamic configuration of every Temporal server agentry starts (the embedded one, the tests', the benchmarks'):
 * - eager activity execution hands a node's activity to the worker in the answer to the workflow task that
 *   scheduled it, instead of through the task queue;
 * - the history service's transfer and visibility queue readers may poll 1000 times a second instead of 20, so the
 *   workflow task that follows a node is dispatched in ~2 ms instead of ~40 ms, and run logs lag less.
 * temporal-docker-compose.yml sets the same values.
 */
export const DEV_SERVER_DYNAMIC_CONFIG = [
  '--dynamic-config-value',
  'system.enableActivityEagerExecution=true',
  '--dynamic-config-value',
  'history.transferProcessorMaxPollRPS=1000',
  '--dynamic-config-value',
  'history.visibilityProcessorMaxPollRPS=1000',
];

/**
 * The embedded server's SQLite store: a write-ahead log with `synchronous=NORMAL` commits without waiting for the
 * disk twice per transaction (the default rollback journal with `synchronous=FULL` does): runs completed 15 % faster
 * (README, Per-run cost); a commit is still safe against a crash of any process, and only an operating system crash
 * or power loss may forget the last commits. `busy_timeout` makes a writer wait for the log instead of failing.
 */
export const DEV_SERVER_SQLITE_PRAGMAS = [
  '--sqlite-pragma',
  'journal_mode=WAL',
  '--sqlite-pragma',
  'synchronous=NORMAL',
  '--sqlite-pragma',
  'busy_timeout=5000',
];

/** Arguments of `temporal server start-dev` for the embedded server, with agentry's search attributes. */
export function devServerArgs(o: DevServerOptions): string[] {
  return [
    'server',
    'start-dev',
    '--ip',
    o.ip,
    '--port',
    String(o.port),
    '--ui-port',
    String(o.uiPort),
    '--namespace',
    o.namespace,
    '--db-filename',
    o.dbFilename,
    '--log-level',
    'warn',
    ...DEV_SERVER_SQLITE_PRAGMAS,
    ...devServerSearchAttributeArgs(),
    ...DEV_SERVER_DYNAMIC_CONFIG,
  ];
}
