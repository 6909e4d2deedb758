/** Where the project-local Temporal CLI lives (built by scripts/ensure-tools.mjs) and how the dev server is started. */
import { join } from 'node:path';
import { devServerSearchAttributeArgs } from './search-attributes.js';

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
 * eager activity execution hands a node's activity to the worker in the answer to the workflow task that
 * scheduled it, instead of through the task queue (about 40 ms less per node on the dev server).
 * temporal-docker-compose.yml sets the same value.
 */
export const DEV_SERVER_DYNAMIC_CONFIG = ['--dynamic-config-value', 'system.enableActivityEagerExecution=true'];

/** Arguments of `temporal server start-dev` for the embedded server, with agentry's search attributes. */
export function devServerArgs(o: DevServerOptions): string[] {
  return [
    'server', 'start-dev',
    '--ip', o.ip,
    '--port', String(o.port),
    '--ui-port', String(o.uiPort),
    '--namespace', o.namespace,
    '--db-filename', o.dbFilename,
    '--log-level', 'warn',
    ...devServerSearchAttributeArgs(),
    ...DEV_SERVER_DYNAMIC_CONFIG,
  ];
}
